import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '@flowmesh/contracts';
import { startFlowMesh, WORKSPACE, type FlowMesh } from './conformance/support/flow-mesh.js';

/**
 * User code reaches no credential of the mesh (issue 21): a step of each language looks through
 * every process's environment on the machine for the mesh's credentials (database URL, NATS URL,
 * admin token: the worker and every service carry some) and finds none, because it runs as the
 * sandbox's unprivileged user with an environment of its own. Each step also proves it could look
 * (it read its own environment), so a probe that reads nothing cannot pass for a sandbox.
 */

const CREDENTIALS = 'DATABASE_URL|NATS_URL|FLOWMESH_ADMIN_TOKEN|FLOWMESH_JOB_TOKEN_KEY';

const PROBES = {
  bun: `
import { readdirSync, readFileSync } from 'node:fs';
export function main() {
  const found: string[] = [];
  let scanned = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
    let env: string;
    try { env = readFileSync('/proc/' + pid + '/environ', 'utf8'); } catch { continue; }
    scanned += 1;
    if (/(^|\\0)(${CREDENTIALS})=/.test(env)) found.push(pid);
  }
  const own = readFileSync('/proc/self/environ', 'utf8');
  return { found, scanned, sawOwn: own.includes('FLOWMESH_JOB_OWNER=') };
}`,
  python3: `
import os, re
def main():
    found, scanned = [], 0
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            env = open('/proc/%s/environ' % pid, 'rb').read().decode('utf-8', 'replace')
        except OSError:
            continue
        scanned += 1
        if re.search(r'(^|\\x00)(${CREDENTIALS})=', env):
            found.append(pid)
    own = open('/proc/self/environ', 'rb').read().decode()
    return {"found": found, "scanned": scanned, "sawOwn": "WM_JOB_ID=" in own, "uid": os.getuid()}
`,
  bash: `
found=""
scanned=0
for f in /proc/[0-9]*/environ; do
  env=$(tr '\\0' '\\n' < "$f" 2>/dev/null) || continue
  scanned=$((scanned + 1))
  if printf '%s\\n' "$env" | grep -qE '^(${CREDENTIALS})='; then found="$found \${f#/proc/}"; fi
done
own=0
# read by the reading process itself (a redirect opens it before exec, and reads nothing)
cat /proc/self/environ | tr '\\0' '\\n' | grep -q '^WM_JOB_ID=' && own=1
echo "{\\"found\\": \\"$found\\", \\"scanned\\": $scanned, \\"sawOwn\\": $own, \\"uid\\": $(id -u)}" > result.json
`,
} as const;

let fm: FlowMesh | undefined;

beforeAll(async () => {
  fm = await startFlowMesh({
    processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
  });
}, 180_000);

afterAll(async () => {
  await fm?.stop();
}, 180_000);

async function runStep(language: keyof typeof PROBES, sameWorker = false): Promise<Job> {
  return runScript(language, PROBES[language], { sameWorker });
}

/** A one-step flow of `content`, run as `as` (the admin by default), once it ended. */
async function runScript(
  language: string,
  content: string,
  { sameWorker = false, as = 'admin' }: { sameWorker?: boolean; as?: 'admin' | 'alice' | 'bob' } = {},
): Promise<Job> {
  if (!fm) throw new Error('the mesh did not start');
  const { job_id } = await fm.jobs.runFlow({
    actor: { token: fm.actors[as].token },
    workspace: WORKSPACE,
    value: {
      summary: 'isolation probe',
      value: {
        ...(sameWorker ? { same_worker: true } : {}),
        modules: [{ id: 'probe', value: { type: 'rawscript', language, content, input_transforms: {} } }],
      },
    },
    args: {},
  });
  return fm.waitForEnd(job_id, 90_000, as);
}

describe('a thread a TypeScript import changed serves its own authority only', () => {
  it("bob's runs never see node:fs as alice's run left it", async () => {
    const patch = `import fs from 'node:fs';
export function main() {
  (fs as any).readFileSync = () => 'patched by alice';
  return 'patched';
}`;
    const look = `import fs from 'node:fs';
export function main() { return fs.readFileSync('/dev/null', 'utf8'); }`;
    for (let round = 0; round < 3; round++) {
      const alice = await runScript('bun', patch, { as: 'alice' });
      expect([alice.status, alice.result]).toEqual(['completed', 'patched']);
      // Right after, while the thread alice's run touched waits for alice's next job.
      const bob = await runScript('bun', look, { as: 'bob' });
      expect([bob.status, bob.result]).toEqual(['completed', '']);
      const admin = await runScript('bun', look);
      expect([admin.status, admin.result]).toEqual(['completed', '']);
    }
  }, 240_000);
});

describe.runIf(process.getuid?.() === 0)('a script reaches no credential of the mesh', () => {
  it.each([
    ['bun', false],
    ['bun', true],
    ['python3', false],
    ['bash', false],
  ] as const)(
    '%s (same_worker: %s) finds no credential in any process environment',
    async (language, sameWorker) => {
      const job = await runStep(language, sameWorker);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const result = job.result as { found: unknown; scanned: number; sawOwn: unknown; uid?: number };
      expect(result.scanned).toBeGreaterThan(0);
      expect(Boolean(result.sawOwn)).toBe(true);
      expect(String(result.found).trim()).toBe('');
      if (result.uid !== undefined) expect(result.uid).not.toBe(0);
    },
  );
});
