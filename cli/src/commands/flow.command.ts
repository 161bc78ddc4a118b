import type { Command } from 'commander';
import { validateFlowFile } from '../flow/validate-flow-file.js';

export { validateFlowFile, type FlowValidation } from '../flow/validate-flow-file.js';

export interface FlowCommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processOutput: FlowCommandOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * `flowmesh flow validate <file>`: exit 0 and a one-line summary for a valid flow, 1 and every
 * error as `path: message` for an invalid one, 2 when the file cannot be read.
 */
export function registerFlowCommands(program: Command, output: FlowCommandOutput = processOutput): void {
  const flow = program.command('flow').description('work with OpenFlow files');
  flow
    .command('validate')
    .description('check an OpenFlow document or a bare FlowValue, in YAML or JSON, against the spec')
    .argument('<file>', 'a .yaml, .yml or .json file')
    .action(async (file: string) => {
      const { exitCode, lines } = await validateFlowFile(file);
      const text = lines.map((line) => `${line}\n`).join('');
      if (exitCode === 2) output.stderr(text);
      else output.stdout(text);
      process.exitCode = exitCode;
    });
}
