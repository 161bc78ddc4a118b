import { fileURLToPath } from 'node:url';

/** Where flowmesh itself is installed (the repository, or `/app` in the image): never a user's script. */
const INSTALL_DIR = fileURLToPath(new URL('../../../../', import.meta.url));

/** A frame of the worker, Node or a dependency, not of the user's script. */
function isWorkerFrame(line: string): boolean {
  return (
    line.includes(INSTALL_DIR) ||
    line.includes(`file://${INSTALL_DIR}`) ||
    /[(\s]node:[a-z_/]+/.test(line) ||
    line.includes('/node_modules/') ||
    line.includes('/site-packages/') ||
    line.includes('/lib/python3')
  );
}

/**
 * A script's stack trace as its author needs it: the error's lines and the frames of their own
 * code, without the worker's frames (its install path, Node's internals, dependencies). A
 * JavaScript frame is one `at ...` line; a Python frame is its `File "..."` line and the source
 * line under it.
 */
export function userStack(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  const lines = stack.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const jsFrame = /^\s+at /.test(line);
    const pyFrame = /^\s+File "/.test(line);
    if ((jsFrame || pyFrame) && isWorkerFrame(line)) {
      // The source line Python prints under a frame goes with it.
      if (pyFrame && /^\s{4,}\S/.test(lines[i + 1] ?? '') && !/^\s+File "/.test(lines[i + 1] ?? '')) i++;
      continue;
    }
    kept.push(line);
  }
  return kept.join('\n');
}
