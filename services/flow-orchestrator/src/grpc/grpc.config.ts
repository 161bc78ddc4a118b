import { settings } from '@flowmesh/bootstrap';
import { type z } from 'zod';

/** Settings of the gRPC API, keyed by environment variable. */
export const grpcSettingsShape = {
  /**
   * The port of the gRPC API (`flowmesh.v1.Jobs`, `Resources`, `Variables`, health, reflection);
   * unset, the orchestrator serves no gRPC. `flowmesh start` and the chart set it (50051).
   */
  FLOWMESH_GRPC_PORT: settings.port().optional(),
};

export interface GrpcConfig {
  readonly port: number | undefined;
}

type GrpcSettings = z.output<z.ZodObject<typeof grpcSettingsShape>>;

export function toGrpcConfig(env: GrpcSettings): GrpcConfig {
  return { port: env.FLOWMESH_GRPC_PORT };
}
