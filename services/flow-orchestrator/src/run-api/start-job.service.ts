import { Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { JobsEngine, type RunFlowCommand, type RunScriptCommand } from './jobs-engine.port.js';

/** Starts flows and scripts as the caller, in the caller's workspace; answers the job id once it is queued durably. */
@Injectable()
export class StartJobService {
  constructor(private readonly engine: JobsEngine) {}

  flow(caller: Caller, command: RunFlowCommand): Promise<string> {
    return this.engine.runFlow(caller, command);
  }

  script(caller: Caller, command: RunScriptCommand): Promise<string> {
    return this.engine.runScript(caller, command);
  }
}
