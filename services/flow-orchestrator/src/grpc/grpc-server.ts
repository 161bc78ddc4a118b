import { GRPC_LOADER_OPTIONS, GRPC_PACKAGE, GRPC_PROTO_FILES, GRPC_SERVICES } from '@flowmesh/contracts/grpc';
import type { ExtraTransport } from '@flowmesh/bootstrap';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { ServerGrpc } from '@nestjs/microservices';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';

/**
 * Nest's gRPC transport serving `flowmesh.v1` (the `@GrpcMethod` handlers of `grpc/`), with the
 * standard health service (`grpc.health.v1.Health`: "" and each flowmesh service SERVING until
 * a graceful stop begins) and server reflection (v1 and v1alpha) on the same port.
 */
export class FlowmeshGrpcServer extends ServerGrpc implements ExtraTransport {
  private readonly health = new HealthImplementation(
    Object.fromEntries(['', ...Object.values(GRPC_SERVICES)].map((name) => [name, 'SERVING'])),
  );
  private boundPort: number | undefined;

  constructor(
    private readonly bind: { readonly host: string; readonly port: number; readonly graceMs: number },
  ) {
    super({
      package: GRPC_PACKAGE,
      protoPath: [...GRPC_PROTO_FILES],
      loader: GRPC_LOADER_OPTIONS,
      url: `${bind.host}:${bind.port}`,
      onLoadPackageDefinition: (definition: PackageDefinition, server: Server) => {
        // Reflection describes the health service too, so `grpcurl list` shows everything served.
        const described = { ...definition, ...loadSync(healthProtoPath, GRPC_LOADER_OPTIONS) };
        new ReflectionService(described).addToServer(server);
        this.health.addToServer(server);
      },
    });
  }

  /** Nest's own bind, keeping the port the OS gave (port 0 in tests). */
  override async createClient(): Promise<Server> {
    const server = new Server();
    this.boundPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(this.url, ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    return server;
  }

  address(): string | undefined {
    return this.boundPort === undefined ? undefined : `${this.bind.host}:${this.boundPort}`;
  }

  /**
   * Stops taking calls and lets those under way finish, `graceMs` at most (a watch stream or a
   * long wait is then cut: its client resumes elsewhere), then closes every connection.
   */
  override async close(): Promise<void> {
    const server = this.grpcClient as Server | null;
    if (!server) return;
    this.grpcClient = null as never;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, this.bind.graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  markStopping(): void {
    for (const name of ['', ...Object.values(GRPC_SERVICES)]) this.health.setStatus(name, 'NOT_SERVING');
  }
}
