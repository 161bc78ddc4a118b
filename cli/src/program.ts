import { Command } from 'commander';
import { registerRoutesCommand } from './commands/routes.command.js';
import { registerStartCommand } from './commands/start.command.js';
import { registerStatusCommand } from './commands/status.command.js';
// FLOW-COMMAND: add `import { registerFlowCommands } from './commands/flow.command.js';` once it lands.

export function createProgram(version: string): Command {
  const program = new Command('flowmesh')
    .description('run and inspect a flowmesh: workflows that mix code steps with AI agents')
    .version(version)
    .showHelpAfterError();
  registerStartCommand(program);
  registerStatusCommand(program);
  registerRoutesCommand(program);
  // FLOW-COMMAND: registerFlowCommands(program);
  return program;
}
