import {
  Global,
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationShutdown,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MeshClient } from '../client/mesh-client.js';
import {
  connectMesh,
  type MeshConnection,
  type MeshConnectionOptions,
} from '../connection/mesh-connection.js';
import { EventFollowers } from './event-followers.js';
import { MESH_CONNECTION } from './messaging.tokens.js';

export interface MessagingModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  useFactory: (...args: never[]) => MeshConnectionOptions | Promise<MeshConnectionOptions>;
}

/**
 * One NATS connection per service, shared by everything that sends (`MeshClient`) and by the
 * transport that serves handlers:
 *
 *     const app = await NestFactory.create(AppModule); // imports MessagingModule.forRoot(...)
 *     app.connectMicroservice({ strategy: new MeshTransport(app.get(MESH_CONNECTION), { service }) });
 *
 * The connection is drained at application shutdown, after the transport stopped taking work.
 * `@FollowEvent` methods anywhere in the application are subscribed here (`EventFollowers`).
 */
@Global()
@Module({})
export class MessagingModule implements OnApplicationShutdown {
  constructor(@Inject(MESH_CONNECTION) private readonly conn: MeshConnection) {}

  static forRoot(options: MeshConnectionOptions): DynamicModule {
    return MessagingModule.withConnection({
      provide: MESH_CONNECTION,
      useFactory: () => connectMesh(withOutageLog(options)),
    });
  }

  static forRootAsync(options: MessagingModuleAsyncOptions): DynamicModule {
    return {
      ...MessagingModule.withConnection({
        provide: MESH_CONNECTION,
        inject: options.inject ?? [],
        useFactory: async (...args: never[]) => connectMesh(withOutageLog(await options.useFactory(...args))),
      }),
      imports: [DiscoveryModule, ...(options.imports ?? [])],
    };
  }

  private static withConnection(connection: Provider): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        EventFollowers,
        connection,
        {
          provide: MeshClient,
          inject: [MESH_CONNECTION],
          useFactory: (conn: MeshConnection) => new MeshClient(conn),
        },
      ],
      exports: [MESH_CONNECTION, MeshClient],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.conn.drain();
  }
}

/** A service says in its log when it loses NATS and when it has it back. */
function withOutageLog(options: MeshConnectionOptions): MeshConnectionOptions {
  return { outageLog: new Logger('NatsConnection'), ...options };
}
