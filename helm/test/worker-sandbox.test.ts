import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrchestratorJobsClient, type JobResultReply } from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, startOwnProcess, type OwnProcess, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmBinary } from './helm-binary.js';
import { renderChart } from './render-chart.js';

/**
 * The chart's worker runs scripts as another user (issue 21): its container is root with six
 * capabilities. Rendered, then run: a worker started with exactly that capability set (and no new
 * privileges, as `allowPrivilegeEscalation: false` gives) runs scripts as uids of their own (a
 * pool per worker, issue 34: SETUID and SETGID are all it takes), which cannot
 * read its environment; hands over and cleans up their job directories; and stops a script at
 * its time limit.
 */

interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
}
interface Container {
  securityContext: SecurityContext;
  env: Array<{ name: string; value?: string }>;
}
interface K8sObject {
  kind: string;
  metadata: { name: string };
  spec?: { template: { spec: { containers: Container[] } } };
}

const WORKER = 'rel-flowmesh-flow-orchestrator-worker';
const containerOf = (objects: K8sObject[], name: string) =>
  objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec!.template.spec.containers[0];
const sandboxUserOf = (container: Container) =>
  container.env.find((e) => e.name === 'FLOWMESH_SANDBOX_USER')?.value;

beforeAll(() => {
  helmBinary();
}, 120_000);

describe('the chart’s worker sandbox', () => {
  it('runs the worker as root with only the capabilities the sandbox needs; every other pod as before', () => {
    const objects = renderChart<K8sObject>();
    const worker = containerOf(objects, WORKER);
    expect(worker.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'], add: ['SETUID', 'SETGID', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL'] },
    });
    expect(sandboxUserOf(worker)).toBe('nobody');
    const others = objects.filter((o) => o.kind === 'Deployment' && o.metadata.name !== WORKER);
    for (const deployment of others) {
      expect(containerOf(objects, deployment.metadata.name).securityContext).toMatchObject({
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(
        containerOf(objects, deployment.metadata.name).securityContext.capabilities?.add,
      ).toBeUndefined();
    }
  });

  it('off: the worker runs as the chart’s user, and its scripts as the worker (it warns)', () => {
    const worker = containerOf(renderChart<K8sObject>('--set', 'worker.sandbox.enabled=false'), WORKER);
    expect(worker.securityContext).toMatchObject({ runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
    expect(worker.securityContext.capabilities?.add).toBeUndefined();
    expect(sandboxUserOf(worker)).toBe('off');
  });

  it('takes another user', () => {
    const worker = containerOf(renderChart<K8sObject>('--set', 'worker.sandbox.user=65000:65000'), WORKER);
    expect(sandboxUserOf(worker)).toBe('65000:65000');
  });
});

// Only root can give a process a smaller capability set, as the container runtime does.
describe.runIf(process.getuid?.() === 0)('a worker with the chart’s capabilities, on real processes', () => {
  const adminToken = `fm_sbx_${randomBytes(24).toString('base64url')}`;
  let mesh: TestMesh | undefined;
  let worker: OwnProcess | undefined;
  let conn: MeshConnection | undefined;
  // The worker's job directories, to see that what a script wrote is gone after its job.
  const scratch = mkdtempSync(join(tmpdir(), 'fm-worker-sandbox-'));
  chmodSync(scratch, 0o711);
  const jobDir = join(scratch, 'jobs');

  beforeAll(async () => {
    const capabilities = containerOf(renderChart<K8sObject>(), WORKER).securityContext.capabilities!.add!;
    const env = {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      LOG_LEVEL: 'warn',
    };
    mesh = await startMesh({
      processes: ['resource-registry', 'flow-orchestrator'],
      env,
      readyTimeoutMs: 150_000,
    });
    worker = await startOwnProcess(
      mesh,
      'flow-orchestrator-worker',
      { ...env, FLOWMESH_SANDBOX_USER: 'nobody', FLOWMESH_JOB_DIR: jobDir },
      undefined,
      {
        launcher: [
          'setpriv',
          '--bounding-set',
          ['-all', ...capabilities.map((c) => `+${c.toLowerCase()}`)].join(','),
          '--inh-caps',
          '-all',
          '--no-new-privs',
          '--',
        ],
      },
    );
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'worker-sandbox',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
  }, 240_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await worker?.stop();
    await mesh?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  async function run(
    language: 'bun' | 'python3' | 'bash',
    content: string,
    timeout?: number,
  ): Promise<JobResultReply> {
    const jobs = createOrchestratorJobsClient(new MeshClient(conn!));
    const scope = { actor: { token: adminToken }, workspace: 'main' };
    const { job_id: id } = await jobs.runFlow({
      ...scope,
      value: {
        modules: [
          {
            id: 'probe',
            ...(timeout ? { timeout } : {}),
            value: { type: 'rawscript', language, content, input_transforms: {} },
          },
        ],
      },
      args: {},
    });
    return jobs.waitResult({ ...scope, id, timeout_ms: 25_000 });
  }

  it('has no capability beyond those six (as the container runtime gives it)', () => {
    const status = readFileSync(`/proc/${worker!.pid}/status`, 'utf8');
    // CHOWN 0, DAC_OVERRIDE 1, FOWNER 3, KILL 5, SETGID 6, SETUID 7.
    const six = (1n << 0n) | (1n << 1n) | (1n << 3n) | (1n << 5n) | (1n << 6n) | (1n << 7n);
    for (const field of ['CapBnd', 'CapEff'])
      expect(BigInt(`0x${new RegExp(`${field}:\\s+([0-9a-f]+)`).exec(status)![1]}`), field).toBe(six);
  });

  it('runs each language as a uid of its own, which cannot read the worker’s environment; what a job wrote goes with it', async () => {
    const environ = `/proc/${worker!.pid}/environ`;
    const bun = await run(
      'bun',
      `import { readFileSync } from 'node:fs';
       export function main() {
         let environ = 'read';
         try { readFileSync(${JSON.stringify(environ)}); } catch (error) { environ = error.code; }
         return { uid: readFileSync('/proc/self/status', 'utf8').match(/Uid:\\s+(\\d+)/)[1], environ };
       }`,
    );
    // The thread sandbox and each process job get uids of FLOWMESH_SANDBOX_UIDS (issue 34).
    const ownUid = (uid: unknown) => Number(uid) >= 1879048192 && Number(uid) <= 1879113727;
    expect(bun).toMatchObject({ success: true, result: { environ: 'EACCES' } });
    expect(ownUid((bun.result as { uid: string }).uid), JSON.stringify(bun.result)).toBe(true);
    const python = await run(
      'python3',
      `import os
def main():
    try:
        open(${JSON.stringify(environ)}).read()
        environ = 'read'
    except PermissionError:
        environ = 'EACCES'
    return {"uid": os.getuid(), "environ": environ}
`,
    );
    expect(python).toMatchObject({ success: true, result: { environ: 'EACCES' } });
    const pythonUid = (python.result as { uid: number }).uid;
    expect(ownUid(pythonUid), JSON.stringify(python.result)).toBe(true);
    expect(String(pythonUid)).not.toBe((bun.result as { uid: string }).uid);
    const bash = await run(
      'bash',
      `mkdir -p made/here && echo x > made/here/file
if cat ${environ} > /dev/null 2>&1; then echo read; else echo "$(id -u) EACCES"; fi`,
    );
    expect(bash).toMatchObject({ success: true });
    expect(String(bash.result)).toMatch(/^\d+ EACCES$/);
    expect(ownUid(String(bash.result).split(' ')[0])).toBe(true);
    // The bash job's directory is removed with it, though nobody made what is in it (DAC_OVERRIDE).
    const left = readdirSync(jobDir, { recursive: true }).map(String);
    expect(left.filter((path) => path.endsWith('here/file'))).toEqual([]);
  });

  it('stops a script of another user at its time limit', async () => {
    const stopped = await run('bash', 'sleep 30', 1);
    expect(stopped).toMatchObject({ completed: true, success: false });
    expect(JSON.stringify(stopped.result)).toMatch(/Timeout|timed out|time limit/i);
  });
});
