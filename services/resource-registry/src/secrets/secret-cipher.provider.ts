import type { Provider } from '@nestjs/common';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { SecretCipher } from './secret-cipher.js';

/** The cipher over the configured keyring; the class is the injection token. */
export const secretCipherProvider: Provider = {
  provide: SecretCipher,
  inject: [ITEMS_CONFIG],
  useFactory: (config: ItemsConfig) => new SecretCipher(config.secretKeys),
};
