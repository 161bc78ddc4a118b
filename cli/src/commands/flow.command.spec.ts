import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerFlowCommands, validateFlowFile } from './flow.command.js';

// The OpenFlow corpus of the contracts package: data only, read from disk.
const CORPUS = fileURLToPath(new URL('../../../contracts/test/openflow/', import.meta.url));
const corpus = (name: string) => join(CORPUS, name);

describe('validateFlowFile', () => {
  it('summarizes a valid OpenFlow document in one line', async () => {
    expect(await validateFlowFile(corpus('valid/kitchen-sink-orchestration.yaml'))).toEqual({
      exitCode: 0,
      lines: [
        'valid OpenFlow "Incident response": 7 modules (script 3, aiagent 1, branchall 1, identity 1, rawscript 1), 1 agent tool',
      ],
    });
  });

  it('summarizes a bare FlowValue', async () => {
    expect(await validateFlowFile(corpus('valid/bare-flow-value.json'))).toEqual({
      exitCode: 0,
      lines: ['valid FlowValue: 2 modules (identity 1, rawscript 1)'],
    });
  });

  it('accepts every valid corpus flow', async () => {
    for (const name of readdirSync(join(CORPUS, 'valid')).filter((file) => /\.(json|ya?ml)$/.test(file))) {
      const result = await validateFlowFile(corpus(`valid/${name}`));
      expect(result.exitCode, `${name}: ${result.lines.join('\n')}`).toBe(0);
    }
  });

  it.each(readdirSync(join(CORPUS, 'invalid')).filter((file) => /\.(json|ya?ml)$/.test(file)))(
    'prints every error of invalid/%s as path: message',
    async (name) => {
      const expected = readFileSync(corpus(`invalid/${name.replace(/\.[^.]+$/, '.errors')}`), 'utf8')
        .trimEnd()
        .split('\n');
      expect(await validateFlowFile(corpus(`invalid/${name}`))).toEqual({ exitCode: 1, lines: expected });
    },
  );

  it('exits 2 with a clear reason when the file cannot be read', async () => {
    const missing = join(tmpdir(), 'no-such-flow.yaml');
    expect(await validateFlowFile(missing)).toEqual({
      exitCode: 2,
      lines: [`cannot read ${missing}: no such file`],
    });
    expect(await validateFlowFile(CORPUS)).toEqual({
      exitCode: 2,
      lines: [`cannot read ${CORPUS}: it is a directory`],
    });
  });

  it('reads a file without a known extension by its first character', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowmesh-flow-'));
    const file = join(dir, 'flow.txt');
    writeFileSync(file, '{"modules": [{"id": "a", "value": {"type": "identity"}}]}');
    expect(await validateFlowFile(file)).toEqual({
      exitCode: 0,
      lines: ['valid FlowValue: 1 module (identity 1)'],
    });
  });
});

describe('flowmesh flow validate', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  async function run(file: string) {
    const out: string[] = [];
    const err: string[] = [];
    const program = new Command('flowmesh').exitOverride();
    registerFlowCommands(program, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
    await program.parseAsync(['flow', 'validate', file], { from: 'user' });
    return { exitCode: process.exitCode, stdout: out.join(''), stderr: err.join('') };
  }

  it('prints the summary and exits 0 for a valid flow', async () => {
    expect(await run(corpus('valid/hello-world.yaml'))).toEqual({
      exitCode: 0,
      stdout: 'valid OpenFlow "Hello world": 1 module (rawscript 1)\n',
      stderr: '',
    });
  });

  it('prints each error on its own line and exits 1 for an invalid flow', async () => {
    expect(await run(corpus('invalid/failure-module-rules.yaml'))).toEqual({
      exitCode: 1,
      stdout:
        'value.failure_module.id: the failure module must have id "failure", got "on_error"\n' +
        'value.failure_module.value.type: the failure module must be a script or rawscript, got "forloopflow"\n',
      stderr: '',
    });
  });

  it('explains on stderr and exits 2 when the file cannot be read', async () => {
    const missing = join(tmpdir(), 'no-such-flow.json');
    expect(await run(missing)).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `cannot read ${missing}: no such file\n`,
    });
  });
});
