import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ServiceName } from '@flowmesh/contracts';

const require = createRequire(import.meta.url);

/** The built entry file of a service (`services/<name>/dist/main.js`), found through its package. */
export function resolveServiceEntry(service: ServiceName): string {
  const manifestPath = require.resolve(`@flowmesh/${service}/package.json`);
  const manifest = require(manifestPath) as { main?: string };
  return join(dirname(manifestPath), manifest.main ?? 'dist/main.js');
}
