import { orchestratorAgentStepContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AgentStepUseCase } from './agent-step.use-case.js';

/** `orchestrator.agent_step.*`: agent-runtime reporting on the AI steps it was handed. */
@Controller()
export class AgentStepsHandler {
  constructor(private readonly steps: AgentStepUseCase) {}

  @HandleRequest(contract.reportAction)
  async reportAction(@Payload() req: RequestOf<typeof contract.reportAction>) {
    if (req.settle)
      return {
        recorded: await this.steps.settleAction(req.workspace, req.job_id, req.action, req.success ?? true),
      };
    return { recorded: await this.steps.reportAction(req.workspace, req.job_id, req.action, req.success) };
  }

  @HandleRequest(contract.wait)
  async wait(@Payload() req: RequestOf<typeof contract.wait>) {
    return { recorded: await this.steps.wait(req.workspace, req.job_id, req.waiting) };
  }

  @HandleRequest(contract.log)
  async log(@Payload() req: RequestOf<typeof contract.log>) {
    return { recorded: await this.steps.log(req.workspace, req.job_id, req.line) };
  }

  @HandleRequest(contract.complete)
  async complete(@Payload() req: RequestOf<typeof contract.complete>) {
    return { accepted: await this.steps.complete(req) };
  }

  @HandleRequest(contract.ended)
  async ended(@Payload() req: RequestOf<typeof contract.ended>) {
    return { ended: await this.steps.ended(req.steps) };
  }
}
