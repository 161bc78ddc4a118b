export { AuthenticationCache, type AuthenticationCacheOptions } from './authentication.cache.js';
export { bearerTokenOf, missingBearerToken, requireBearerToken } from './bearer-token.util.js';
export { itemPath } from './item-path.param.js';
export { jsonBody } from './json-body.util.js';
export { parseWith, validateWith } from './validate-with.pipe.js';
