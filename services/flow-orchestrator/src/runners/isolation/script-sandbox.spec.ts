import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PARENT_DEATH_LAUNCHER } from '../process/orphan-reaper.js';
import { NO_SANDBOX, resolveScriptSandbox, sandboxLaunch } from './script-sandbox.js';

const PASSWD =
  'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n';
const passwd = () => PASSWD;

describe('resolveScriptSandbox', () => {
  it('finds a user by name, or takes uid and gid as numbers', () => {
    expect(resolveScriptSandbox('nobody', 'host', 0, passwd).sandbox.user).toEqual({
      name: 'nobody',
      uid: 65534,
      gid: 65534,
    });
    expect(resolveScriptSandbox('1500:1600', 'none', 0, passwd).sandbox).toEqual({
      user: { name: '1500:1600', uid: 1500, gid: 1600 },
      network: 'none',
    });
    expect(resolveScriptSandbox('1500', 'host', 0, passwd).sandbox.user?.gid).toBe(1500);
  });

  it('refuses a user that does not exist, and root, naming the setting', () => {
    expect(() => resolveScriptSandbox('ghost', 'host', 0, passwd)).toThrow(
      'FLOWMESH_SANDBOX_USER: no user named "ghost" in /etc/passwd',
    );
    expect(() => resolveScriptSandbox('root', 'host', 0, passwd)).toThrow(/is root/);
    expect(() => resolveScriptSandbox('0:0', 'host', 0, passwd)).toThrow(/is root/);
  });

  it('runs scripts as the worker itself when it cannot switch users or is told to, and says so', () => {
    const notRoot = resolveScriptSandbox('nobody', 'host', 1000, passwd);
    expect(notRoot.sandbox).toEqual({ network: 'host' });
    expect(notRoot.warnings.join()).toMatch(/not root.*can read its environment/);
    const off = resolveScriptSandbox('off', 'none', 0, passwd);
    expect(off.sandbox).toEqual({ network: 'none' });
    expect(off.warnings.join()).toMatch(/FLOWMESH_SANDBOX_USER is off/);
  });
});

describe('sandboxLaunch', () => {
  const user = { name: 'nobody', uid: 65534, gid: 65534 };

  it('switches user through spawn on the host network', () => {
    expect(sandboxLaunch({ user, network: 'host' }, 'python3', ['-c', 'pass'], null)).toEqual({
      command: 'python3',
      args: ['-c', 'pass'],
      uid: 65534,
      gid: 65534,
    });
    expect(sandboxLaunch({ network: 'host' }, 'bash', [], null)).toEqual({ command: 'bash', args: [] });
  });

  it('without network, unshare makes the namespace and then switches user', () => {
    expect(sandboxLaunch({ user, network: 'none' }, 'bash', ['x'], null)).toEqual({
      command: 'unshare',
      args: ['--net', '--setuid', '65534', '--setgid', '65534', '--', 'bash', 'x'],
    });
    expect(sandboxLaunch({ network: 'none' }, 'bash', ['x'], null).args).toEqual([
      '--net',
      '--user',
      '--map-current-user',
      '--',
      'bash',
      'x',
    ]);
  });

  it('asks for the parent-death signal last, after any change of user', () => {
    const setpriv = '/usr/bin/setpriv';
    const dying = [setpriv, '--pdeathsig', 'KILL', '--', 'bash', 'x'];
    expect(sandboxLaunch({ user, network: 'host' }, 'bash', ['x'], setpriv)).toEqual({
      command: setpriv,
      args: dying.slice(1),
      uid: 65534,
      gid: 65534,
    });
    expect(sandboxLaunch({ user, network: 'none' }, 'bash', ['x'], setpriv).args).toEqual([
      '--net',
      '--setuid',
      '65534',
      '--setgid',
      '65534',
      '--',
      ...dying,
    ]);
  });

  it.runIf(PARENT_DEATH_LAUNCHER)('a process it starts dies with its parent, at once', async () => {
    // A parent that starts `sleep` as a job's process is started, and is SIGKILLed: no watchdog
    // runs here, so only the kernel's parent-death signal can end the sleep.
    const launch = sandboxLaunch(NO_SANDBOX, 'sleep', ['30']);
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.argv[1], JSON.parse(process.argv[2]), { detached: true, stdio: 'ignore' });
         c.on('spawn', () => console.log(c.pid));`,
        launch.command,
        JSON.stringify(launch.args),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    // The launcher has asked for the signal once it has become `sleep`.
    await until(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep'));
    parent.kill('SIGKILL');
    await until(() => !running(pid));
  });
});

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `condition` for up to 10 s (a loaded machine); the sleep would last 30. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
