import { Module, type DynamicModule } from '@nestjs/common';
import { CredentialsInvalidationListener } from './credentials-invalidation.listener.js';
import { CREDENTIALS_CONFIG, type CredentialsConfig } from './credentials.config.js';
import { CredentialsResolver } from './credentials-resolver.js';
import { KeyOwnership } from './key-ownership.js';
import { RegistryCredentialsResolver } from './registry-credentials.resolver.js';

/** Provider credentials from the registry, cached, dropped on change events. */
@Module({})
export class CredentialsModule {
  static forRoot(config: CredentialsConfig): DynamicModule {
    return {
      module: CredentialsModule,
      controllers: [CredentialsInvalidationListener],
      providers: [
        { provide: CREDENTIALS_CONFIG, useValue: config },
        RegistryCredentialsResolver,
        KeyOwnership,
        { provide: CredentialsResolver, useExisting: RegistryCredentialsResolver },
      ],
      exports: [CredentialsResolver, RegistryCredentialsResolver, KeyOwnership],
    };
  }
}
