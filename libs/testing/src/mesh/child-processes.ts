import { execFileSync } from 'node:child_process';

/** Direct children of `pid`, with their command lines (`ps`, so Linux and macOS). */
export function childrenOf(pid: number): Array<{ pid: number; args: string }> {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' }).trim();
  return out
    ? out.split('\n').map((line) => {
        const [, childPid = '0', args = ''] = /^\s*(\d+)\s+(.*)$/.exec(line) ?? [];
        return { pid: Number(childPid), args };
      })
    : [];
}
