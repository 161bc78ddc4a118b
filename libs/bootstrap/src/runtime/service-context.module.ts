import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { ServiceConfig } from '../config/service-config.js';
import { SERVICE_CONFIG } from '../config/service-config.token.js';
import { ProcessIdentity } from './process-identity.js';

/** The parsed configuration and the process identity, injectable everywhere in the service. */
@Global()
@Module({})
export class ServiceContextModule {
  static forRoot(config: ServiceConfig<object>, identity: ProcessIdentity): DynamicModule {
    return {
      module: ServiceContextModule,
      providers: [
        { provide: SERVICE_CONFIG, useValue: config },
        { provide: ProcessIdentity, useValue: identity },
      ],
      exports: [SERVICE_CONFIG, ProcessIdentity],
    };
  }
}
