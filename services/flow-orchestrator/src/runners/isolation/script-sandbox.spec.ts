import { describe, expect, it } from 'vitest';
import { resolveScriptSandbox, sandboxLaunch } from './script-sandbox.js';

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
    expect(sandboxLaunch({ user, network: 'host' }, 'python3', ['-c', 'pass'])).toEqual({
      command: 'python3',
      args: ['-c', 'pass'],
      uid: 65534,
      gid: 65534,
    });
    expect(sandboxLaunch({ network: 'host' }, 'bash', [])).toEqual({ command: 'bash', args: [] });
  });

  it('without network, unshare makes the namespace and then switches user', () => {
    expect(sandboxLaunch({ user, network: 'none' }, 'bash', ['x'])).toEqual({
      command: 'unshare',
      args: ['--net', '--setuid', '65534', '--setgid', '65534', '--', 'bash', 'x'],
    });
    expect(sandboxLaunch({ network: 'none' }, 'bash', ['x']).args).toEqual([
      '--net',
      '--user',
      '--map-current-user',
      '--',
      'bash',
      'x',
    ]);
  });
});
