export {
  checkSecretKeysSetting,
  insecureDevelopmentKeyring,
  INSECURE_DEVELOPMENT_KEY_ID,
  parseSecretKeys,
  secretKeyringOf,
  type SecretKey,
  type SecretKeyring,
} from './secret-keyring.js';
export { KeyringCipher, type OpenFailure, type SealedValue } from './keyring-cipher.js';
export { JobTokenSealer } from './job-token.sealer.js';
