import { pythonWorkspaceImports } from '@flowmesh/contracts';
import type { FoundImport, ImportScanner } from './requirements-collector.js';
import { workspaceImportPath } from './workspace-path.js';

/** Modules of the standard library (3.8 to 3.13) that scripts commonly import: never packages. */
const STDLIB = new Set(
  `__future__ abc argparse array ast asyncio atexit base64 binascii bisect builtins bz2 calendar cmath
  collections concurrent configparser contextlib contextvars copy csv ctypes dataclasses datetime decimal
  difflib dis email enum errno fnmatch fractions ftplib functools gc getpass gettext glob gzip hashlib heapq
  hmac html http imaplib importlib inspect io ipaddress itertools json keyword linecache locale logging lzma
  mailbox math mimetypes multiprocessing numbers operator os pathlib pickle pkgutil platform plistlib pprint
  profile queue random re resource sched secrets select selectors shelve shlex shutil signal smtplib socket
  socketserver sqlite3 ssl stat statistics string struct subprocess sys sysconfig tarfile tempfile textwrap
  threading time timeit tokenize tomllib traceback types typing unicodedata unittest urllib uuid venv warnings
  weakref xml zipfile zlib zoneinfo`.split(/\s+/),
);

/** Import names whose distribution is called otherwise (Windmill's windmill-parser-py-imports does the same). */
const DISTRIBUTIONS: Readonly<Record<string, string>> = {
  yaml: 'pyyaml',
  PIL: 'pillow',
  sklearn: 'scikit-learn',
  cv2: 'opencv-python',
  bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil',
  dotenv: 'python-dotenv',
  jwt: 'pyjwt',
  psycopg2: 'psycopg2-binary',
  google: 'google-api-python-client',
};

const REQUIREMENT =
  /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*((?:==|>=|<=|~=|!=|>|<)[^;#\s]+(?:\s*,\s*(?:==|>=|<=|~=|!=|>|<)[^;#\s]+)*)?/;

/**
 * What a python3 unit imports: `import x` / `from x import y` (top-level module names, the
 * standard library left out, a few names mapped to their distribution), `# requirements:` lines
 * (`# requests==2.31.0`: a pin kept as written; when the block is there, it is the whole list, as
 * in Windmill), and workspace scripts by Windmill's names (`f.<folder>.<script>`,
 * `u.<user>.<script>`, relative `.sibling`: `pythonWorkspaceImports`, as workers read them).
 */
export const scanPythonImports: ImportScanner = (content, place) => {
  const found: FoundImport[] = [];
  for (const specifier of pythonWorkspaceImports(content)) {
    const path = workspaceImportPath(specifier, place);
    if (path) found.push({ kind: 'workspace', path });
  }
  const lines = content.split('\n');
  const block = requirementsBlock(lines);
  if (block) found.push(...block);
  for (const line of lines) {
    const match =
      /^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*))/.exec(
        line,
      );
    if (!match) continue;
    const modules = match[1] ? [match[1]] : match[2].split(',').map((m) => m.trim().split(/\s+/)[0]);
    for (const module of modules) {
      const parts = module.split('.');
      if ((parts[0] === 'f' || parts[0] === 'u') && parts.length >= 2) continue;
      if (block || STDLIB.has(parts[0])) continue;
      found.push({
        kind: 'package',
        name: (DISTRIBUTIONS[parts[0]] ?? parts[0]).toLowerCase().replace(/_/g, '-'),
      });
    }
  }
  return found;
};

function requirementsBlock(lines: readonly string[]): FoundImport[] | undefined {
  const start = lines.findIndex((l) => /^#\s*requirements:\s*$/.test(l.trim()));
  if (start < 0) return undefined;
  const found: FoundImport[] = [];
  for (const line of lines.slice(start + 1)) {
    const text = line.trim();
    if (!text.startsWith('#')) break;
    const req = REQUIREMENT.exec(text.slice(1).trim());
    if (!req) continue;
    const name = req[1].toLowerCase();
    found.push(
      req[2] ? { kind: 'package', name, range: req[2].replace(/\s+/g, '') } : { kind: 'package', name },
    );
  }
  return found;
}
