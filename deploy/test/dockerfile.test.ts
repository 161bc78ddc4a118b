import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES } from '@flowmesh/contracts';
import { type Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// No Docker engine runs on the development machines or in CI, so the image is checked
// statically: the Dockerfile's structure, the files it copies, and the entrypoint's behaviour.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dockerfileText = readFileSync(join(repoRoot, 'deploy/Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(dockerfileText);
const dockerignore = readFileSync(join(repoRoot, 'deploy/Dockerfile.dockerignore'), 'utf8');

interface Stage {
  readonly name: string | undefined;
  readonly image: string;
  readonly instructions: Instruction[];
}

/** Initial ARG values substituted into each FROM; instructions grouped by stage. */
function stages(): Stage[] {
  const args = new Map<string, string>();
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property?.getValue()) args.set(property.getName(), property.getValue() as string);
  }
  const substitute = (text: string) =>
    text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare) as string;
      return args.get(name) ?? `<unset ${name}>`;
    });
  const result: { name: string | undefined; image: string; instructions: Instruction[] }[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const from = dockerfile
        .getFROMs()
        .find((f) => f.getRange().start.line === instruction.getRange().start.line)!;
      result.push({
        name: from.getBuildStage() ?? undefined,
        image: substitute(from.getImage() ?? ''),
        instructions: [],
      });
    } else if (result.length > 0) {
      result.at(-1)!.instructions.push(instruction);
    }
  }
  return result;
}

const words = (instruction: Instruction) => instruction.getArguments().map((a) => a.getValue());
const flag = (instruction: Instruction, name: string) =>
  (instruction as Copy)
    .getFlags()
    .find((f) => f.getName() === name)
    ?.getValue() ?? undefined;
const ofKind = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.getKeyword() === keyword);

/**
 * Docker's context filter: a path is left out when the last pattern matching it, or one of its
 * parent directories, is not negated. `**` spans directories, `*` and `?` stay within one.
 */
function excludedByDockerignore(path: string): boolean {
  const rules = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = posix
        .normalize((negated ? line.slice(1) : line).replace(/^\/+/, ''))
        .replace(/\/$/, '');
      const source = pattern
        .split(/(\*\*\/|\/\*\*$|\*\*|\*|\?)/)
        .map((part) => {
          if (part === '**/') return '(?:.*/)?';
          if (part === '/**') return '(?:/.*)?';
          if (part === '**') return '.*';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  const segments = posix.normalize(path).replace(/\/$/, '').split('/');
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let excluded = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.regex.test(candidate))) excluded = !rule.negated;
  }
  return excluded;
}

function workspaceDirs(): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '*package.json'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean)
    .map((file) => posix.dirname(file));
  return pkg.workspaces.flatMap((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/\*/g, '[^/]+')}$`);
    return listed.filter((dir) => regex.test(dir));
  });
}

describe('deploy/Dockerfile', () => {
  const all = stages();
  const build = all.find((s) => s.name === 'build');
  const runtime = all.at(-1)!;

  it('builds on node:24 and runs on a slim node:24', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(build, 'a stage named "build"').toBeDefined();
    expect(build!.image).toMatch(/^node:24(\.\d+)*(-bookworm)?$/);
    expect(runtime.image).toMatch(/^node:24(\.\d+)*(-bookworm)?-slim$/);
    expect(runtime.name).not.toBe('build');
  });

  it('installs from the lock, builds, then drops dev dependencies in the build stage', () => {
    const commands = ofKind(build!, 'RUN').map((run) => words(run).join(' '));
    const script = commands.join(' && ');
    const ci = script.indexOf('npm ci');
    const compile = script.indexOf('npm run build');
    const prune = script.search(/npm prune --omit=dev|npm ci --omit=dev/);
    expect(ci, 'npm ci').toBeGreaterThanOrEqual(0);
    expect(compile, 'npm run build after npm ci').toBeGreaterThan(ci);
    expect(prune, 'dev dependencies dropped after the build').toBeGreaterThan(compile);
    expect(script).not.toMatch(/npm install(?! --omit)/);
  });

  it('copies every workspace manifest before npm ci, so the lock matches the workspaces', () => {
    const instructions = build!.instructions;
    const ciIndex = instructions.findIndex(
      (i) => i.getKeyword() === 'RUN' && words(i).join(' ').includes('npm ci'),
    );
    const copiedBefore = instructions
      .slice(0, ciIndex)
      .filter((i) => i.getKeyword() === 'COPY')
      .flatMap((copy) => words(copy).slice(0, -1));
    expect(copiedBefore).toContain('package.json');
    expect(copiedBefore).toContain('package-lock.json');
    const dirs = workspaceDirs();
    expect(dirs).toEqual(
      expect.arrayContaining(['contracts', 'cli', ...SERVICE_NAMES.map((s) => `services/${s}`)]),
    );
    for (const dir of dirs) expect(copiedBefore, `${dir}/package.json`).toContain(`${dir}/package.json`);
  });

  it('copies from the context only paths that exist and that the dockerignore lets through', () => {
    const sources = all.flatMap((stage) =>
      ofKind(stage, 'COPY')
        .filter((copy) => flag(copy, 'from') === undefined)
        .flatMap((copy) => words(copy).slice(0, -1)),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(repoRoot, source)), `${source} exists`).toBe(true);
      expect(excludedByDockerignore(source), `${source} is in the build context`).toBe(false);
    }
    // Benchmark workspaces ship only their manifest (for the lock); their code is not in the image.
    for (const dir of workspaceDirs().filter((d) => !d.startsWith('bench/'))) {
      expect(excludedByDockerignore(`${dir}/src/main.ts`), `${dir} sources reach the build`).toBe(false);
      expect(excludedByDockerignore(`${dir}/dist/main.js`), `a local ${dir}/dist stays out`).toBe(true);
      expect(excludedByDockerignore(`${dir}/node_modules/x/index.js`), `${dir}/node_modules stays out`).toBe(
        true,
      );
    }
    expect(excludedByDockerignore('node_modules/.bin/tsc')).toBe(true);
    expect(excludedByDockerignore('.git/HEAD')).toBe(true);
  });

  it('copies between stages only from stages defined earlier', () => {
    all.forEach((stage, index) => {
      for (const copy of ofKind(stage, 'COPY')) {
        const from = flag(copy, 'from');
        if (from === undefined) continue;
        const earlier = all.slice(0, index).map((s) => s.name);
        expect(earlier, `COPY --from=${from} in stage ${stage.name}`).toContain(from);
      }
    });
    const copiedToRuntime = ofKind(runtime, 'COPY').flatMap((copy) => words(copy).slice(0, -1));
    for (const needed of ['node_modules', 'services', 'libs', 'contracts']) {
      expect(
        copiedToRuntime.some((source) => source.replace(/\/$/, '').endsWith(`/${needed}`)),
        needed,
      ).toBe(true);
    }
  });

  it('runs as a non-root user in production mode, without a HEALTHCHECK', () => {
    const users = ofKind(runtime, 'USER').map((user) => words(user).join(' '));
    expect(users.length, 'a USER in the runtime stage').toBeGreaterThan(0);
    const [user] = users.at(-1)!.split(':');
    expect(['root', '0']).not.toContain(user);
    expect(user, 'numeric, so Kubernetes can verify runAsNonRoot').toMatch(/^\d+$/);
    const env = new Map(
      ofKind(runtime, 'ENV').flatMap((instruction) =>
        dockerfile
          .getENVs()
          .filter((e) => e.getRange().start.line === instruction.getRange().start.line)
          .flatMap((e) => e.getProperties().map((p) => [p.getName(), p.getValue()] as const)),
      ),
    );
    expect(env.get('NODE_ENV')).toBe('production');
    expect(dockerfile.getHEALTHCHECKs()).toHaveLength(0);
  });

  it('starts through the entrypoint script copied into the runtime stage, under an init that is installed', () => {
    const entrypoints = ofKind(runtime, 'ENTRYPOINT');
    expect(entrypoints).toHaveLength(1);
    const argv = JSON.parse(words(entrypoints[0]).join(' ')) as string[];
    expect(Array.isArray(argv), 'exec form, so signals reach the process').toBe(true);
    const workdir = words(ofKind(runtime, 'WORKDIR').at(-1)!)[0];
    const copy = ofKind(runtime, 'COPY').find((c) => words(c)[0] === 'deploy/entrypoint.sh');
    expect(copy, 'deploy/entrypoint.sh copied').toBeDefined();
    const script = posix.resolve(workdir, words(copy!).at(-1)!);
    expect(argv).toContain(script);
    const init = argv.slice(0, argv.indexOf(script));
    if (init.length > 0) {
      // An init such as tini must come from a package the runtime stage installs.
      const installs = ofKind(runtime, 'RUN').map((run) => words(run).join(' '));
      const program = posix.basename(init[0]);
      expect(
        installs.some((command) => new RegExp(`apt-get install .*\\b${program}\\b`).test(command)),
        program,
      ).toBe(true);
    }
    const executable =
      (statSync(join(repoRoot, 'deploy/entrypoint.sh')).mode & 0o111) !== 0 || flag(copy!, 'chmod');
    expect(executable, 'entrypoint is executable').toBeTruthy();
  });

  it('finds each service where the entrypoint looks for it', () => {
    for (const service of SERVICE_NAMES) {
      const pkg = JSON.parse(readFileSync(join(repoRoot, 'services', service, 'package.json'), 'utf8')) as {
        main?: string;
      };
      expect(posix.normalize(pkg.main ?? ''), `services/${service} main`).toBe('dist/main.js');
    }
  });
});

describe('deploy/entrypoint.sh', () => {
  let app: string;

  beforeAll(() => {
    // A miniature image: the script at deploy/, two services with a dist/main.js each.
    app = mkdtempSync(join(tmpdir(), 'flowmesh-entrypoint-'));
    mkdirSync(join(app, 'deploy'));
    copyFileSync(join(repoRoot, 'deploy/entrypoint.sh'), join(app, 'deploy/entrypoint.sh'));
    chmodSync(join(app, 'deploy/entrypoint.sh'), 0o755);
    for (const service of ['alpha-service', 'beta']) {
      mkdirSync(join(app, 'services', service, 'dist'), { recursive: true });
      writeFileSync(
        join(app, 'services', service, 'dist/main.js'),
        `console.log(JSON.stringify({ service: ${JSON.stringify(service)}, pid: process.pid, role: process.env.FLOWMESH_ROLE, args: process.argv.slice(2) }));\n`,
      );
    }
    mkdirSync(join(app, 'services', 'unbuilt'), { recursive: true });
  });

  afterAll(() => rmSync(app, { recursive: true, force: true }));

  const run = (env: Record<string, string | undefined>, args: string[] = []) => {
    const script = join(app, 'deploy/entrypoint.sh');
    return spawnSync('sh', ['-c', 'exec "$0" "$@"', script, ...args], {
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...env },
    });
  };

  it('execs node on the chosen service with its arguments and environment', () => {
    const result = run({ FLOWMESH_SERVICE: 'alpha-service', FLOWMESH_ROLE: 'worker' }, ['--flag']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      service: 'alpha-service',
      role: 'worker',
      args: ['--flag'],
    });
  });

  it('refuses a missing FLOWMESH_SERVICE and lists the services it knows', () => {
    const result = run({});
    expect(result.status).toBe(64);
    expect(result.stderr).toMatch(/FLOWMESH_SERVICE is not set/);
    expect(result.stderr).toMatch(/alpha-service beta/);
    expect(result.stdout).toBe('');
  });

  it.each(['gamma', 'unbuilt', '../deploy', 'alpha-service/../beta', 'Alpha-Service'])(
    'refuses FLOWMESH_SERVICE=%s',
    (name) => {
      const result = run({ FLOWMESH_SERVICE: name });
      expect(result.status).toBe(64);
      expect(result.stderr).toContain(`"${name}"`);
      expect(result.stderr).toMatch(/alpha-service beta/);
      expect(result.stdout).toBe('');
    },
  );
});
