import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `python3 -m pip` works here (the python resolver's and runner's tests need it). */
export const pipAvailable =
  spawnSync('python3', ['-m', 'pip', '--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;

/** name -> version -> its `Requires-Dist` lines. */
export type PythonIndexContents = Record<string, Record<string, string[]>>;

// Wheels are zip files with METADATA, WHEEL and RECORD; the index is PEP 503 (a page per project).
// Each wheel's package is `<name with _>/__init__.py` holding `__version__`, so a test can import it.
const BUILD = `
import json, os, sys, zipfile
root, contents = sys.argv[1], json.loads(sys.argv[2])
projects = {}
for name, versions in contents.items():
    os.makedirs(os.path.join(root, name), exist_ok=True)
    for version, requires in versions.items():
        dist = f"{name.replace('-', '_')}-{version}"
        wheel = f"{dist}-py3-none-any.whl"
        with zipfile.ZipFile(os.path.join(root, name, wheel), "w") as z:
            z.writestr(f"{name.replace('-', '_')}/__init__.py", f"__version__ = {version!r}\\n")
            z.writestr(f"{dist}.dist-info/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n" + "".join(f"Requires-Dist: {r}\\n" for r in requires))
            z.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: flowmesh-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
            z.writestr(f"{dist}.dist-info/RECORD", "")
        projects.setdefault(name, []).append(wheel)
for name, wheels in projects.items():
    with open(os.path.join(root, name, "index.html"), "w") as f:
        f.write("<html><body>" + "".join(f'<a href="{w}">{w}</a>' for w in wheels) + "</body></html>")
with open(os.path.join(root, "index.html"), "w") as f:
    f.write("<html><body>" + "".join(f'<a href="{n}/">{n}</a>' for n in projects) + "</body></html>")
`;

/** A `file://` PEP 503 index of wheels built here; `remove()` deletes it. */
export function buildPythonIndex(contents: PythonIndexContents): { url: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fm-pyindex-'));
  execFileSync('python3', ['-c', BUILD, dir, JSON.stringify(contents)], { timeout: 60_000 });
  return { url: `file://${dir}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
