/**
 * Writes helm/flowmesh/files/nats-permissions.json: every NATS user of the mesh (a process each,
 * and the CLI) with the permissions the contracts give it, so the chart's NATS authorization is
 * the one `flowmesh start` configures locally. The subject prefix is a release value, so the
 * file holds a marker the chart replaces (`fmprefix` in subjects and inboxes, `FMPREFIX` in
 * stream names).
 *
 *   npm run nats:sync     (builds contracts, then runs this file with Node's type stripping)
 *
 * helm/test/nats-permissions.test.ts fails when the checked-in file differs from what this produces.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { meshNatsUsers } from '@flowmesh/contracts';

export const NATS_PERMISSIONS_FILE = fileURLToPath(
  new URL('../flowmesh/files/nats-permissions.json', import.meta.url),
);

/** Stands for the release's subject prefix; stream names carry it upper-cased. */
export const PREFIX_MARKER = 'fmprefix';

/** The file's exact text: stable order, two-space indent, trailing newline. */
export function renderNatsPermissionsFile(): string {
  const body = {
    $comment:
      'Generated from SERVICE_TRAFFIC in @flowmesh/contracts by `npm run nats:sync`; do not edit. ' +
      `"${PREFIX_MARKER}" is the subject prefix, "${PREFIX_MARKER.toUpperCase()}" its stream-name form.`,
    users: meshNatsUsers(PREFIX_MARKER),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(NATS_PERMISSIONS_FILE, renderNatsPermissionsFile());
  console.log(`wrote the NATS users and permissions to ${NATS_PERMISSIONS_FILE}`);
}
