import { orchestratorAgentStepContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AgentStepUseCase } from './agent-step.use-case.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `orchestrator.agent_step.*`: agent-runtime reporting on the AI steps it was handed. */
@Controller()
export class AgentStepsHandler {
  constructor(private readonly steps: AgentStepUseCase) {}

  @HandleRequest(contract.reportAction)
  async reportAction(@Payload() req: Req<'reportAction'>) {
    return { recorded: await this.steps.reportAction(req.workspace, req.job_id, req.action, req.success) };
  }

  @HandleRequest(contract.wait)
  async wait(@Payload() req: Req<'wait'>) {
    return { recorded: await this.steps.wait(req.workspace, req.job_id, req.waiting) };
  }

  @HandleRequest(contract.log)
  async log(@Payload() req: Req<'log'>) {
    return { recorded: await this.steps.log(req.workspace, req.job_id, req.line) };
  }

  @HandleRequest(contract.complete)
  async complete(@Payload() req: Req<'complete'>) {
    return { accepted: await this.steps.complete(req) };
  }

  @HandleRequest(contract.ended)
  async ended(@Payload() req: Req<'ended'>) {
    return { ended: await this.steps.ended(req.steps) };
  }
}
