import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG, ITEMS_LOGGER } from '../items/items.tokens.js';

/** Says at start, once, that secrets are encrypted with the public development key. */
@Injectable()
export class SecretKeyWarning implements OnApplicationBootstrap {
  constructor(
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
    @Inject(ITEMS_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.secretKeys.insecureDevelopmentKey) {
      this.logger.warn(
        'FLOWMESH_SECRET_KEYS is not set: secret variables are encrypted with the public development key (insecure-dev), which protects nothing; set it (required with NODE_ENV=production)',
      );
    }
  }
}
