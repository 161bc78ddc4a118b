import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new directory that the scripts of a test can write in and the test can read: scripts run as
 * the sandbox's user (`FLOWMESH_SANDBOX_USER`), not as the test, so a private `mkdtemp` directory
 * is closed to them. Tests only: anyone on the machine may write in it.
 */
export function scriptScratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  return dir;
}
