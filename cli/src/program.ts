import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.command.js';
import { registerDbCommands } from './commands/db.command.js';
import { registerEvalCommands } from './commands/eval.command.js';
import { registerFlowCommands } from './commands/flow.command.js';
import { registerJobsCommands } from './commands/jobs.command.js';
import { registerMcpCommands } from './commands/mcp.command.js';
import { registerPullCommand } from './commands/pull.command.js';
import { registerPushCommand } from './commands/push.command.js';
import { registerRouteTableCommand } from './commands/route-table.command.js';
import { registerRoutesCommands } from './commands/routes.command.js';
import { registerRunCommand } from './commands/run.command.js';
import { registerSchedulesCommands } from './commands/schedules.command.js';
import { registerStartCommand } from './commands/start.command.js';
import { registerStatusCommand } from './commands/status.command.js';
import { registerVersionsCommand } from './commands/versions.command.js';
import { registerWebhooksCommands } from './commands/webhooks.command.js';

export function createProgram(version: string): Command {
  const program = new Command('flowmesh')
    .description('run and inspect a flowmesh: workflows that mix code steps with AI agents')
    .version(version)
    .showHelpAfterError();
  registerStartCommand(program);
  registerStatusCommand(program);
  registerRouteTableCommand(program);
  registerFlowCommands(program);
  registerAdminCommands(program);
  registerPushCommand(program);
  registerPullCommand(program);
  registerVersionsCommand(program);
  registerRunCommand(program);
  registerJobsCommands(program);
  registerSchedulesCommands(program);
  registerRoutesCommands(program);
  registerWebhooksCommands(program);
  registerMcpCommands(program);
  registerEvalCommands(program);
  registerDbCommands(program);
  return program;
}
