import {
  createParamDecorator,
  Inject,
  Injectable,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';

/**
 * The port `@MeshCaller()` authenticates through: who the token is in the workspace, or the
 * error that says why not (UNAUTHENTICATED, NOT_FOUND, ...), which reaches the caller unchanged.
 * A service provides it once (`{ provide: MESH_AUTHENTICATOR, useExisting: AccessService }`).
 */
export interface MeshAuthenticator<Caller = unknown> {
  authenticate(token: string, workspace: string): Promise<Caller>;
}

export const MESH_AUTHENTICATOR = Symbol('flowmesh.mesh-authenticator');

/** The part of a request `@MeshCaller()` reads: every contract request made on someone's behalf has it. */
interface OnBehalfOf {
  readonly actor: { readonly token: string };
  readonly workspace: string;
}

/** Turns the request into its caller through the service's `MESH_AUTHENTICATOR`. */
@Injectable()
export class MeshCallerPipe implements PipeTransform<unknown, Promise<unknown>> {
  constructor(@Inject(MESH_AUTHENTICATOR) private readonly authenticator: MeshAuthenticator) {}

  transform(request: unknown): Promise<unknown> {
    if (!isOnBehalfOf(request)) {
      throw new Error('@MeshCaller() needs a request contract with `actor` and `workspace`');
    }
    return this.authenticator.authenticate(request.actor.token, request.workspace);
  }
}

function isOnBehalfOf(request: unknown): request is OnBehalfOf {
  if (typeof request !== 'object' || request === null) return false;
  const { actor, workspace } = request as Partial<OnBehalfOf>;
  return typeof actor?.token === 'string' && typeof workspace === 'string';
}

const meshRequest = createParamDecorator((_: unknown, context: ExecutionContext): unknown =>
  context.switchToRpc().getData(),
);

/**
 * The caller of a request handler, as guards give it on HTTP: `@MeshCaller() caller: CallerIdentity`
 * beside `@Payload()` authenticates the request's `actor.token` in its `workspace` before the
 * handler runs, through the port the service provides as `MESH_AUTHENTICATOR`; a token that does
 * not authenticate fails the request with that port's error.
 */
export function MeshCaller(): ParameterDecorator {
  return meshRequest(MeshCallerPipe);
}
