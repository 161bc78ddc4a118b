import { Inject } from '@nestjs/common';

/** Injection token of the service's `MeshConnection` (an interface, so it needs a token). */
export const MESH_CONNECTION = Symbol.for('flowmesh.MeshConnection');

/** `constructor(@InjectMeshConnection() conn: MeshConnection)`. */
export const InjectMeshConnection = (): ParameterDecorator => Inject(MESH_CONNECTION);
