import {
  agentStepContract,
  type AgentStepAnswerRequest,
  type AgentStepStartRequest,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AgentRuns } from '../runs/agent-runs.service.js';

/** `agent.step.*`: the orchestrator hands over an AI step (the reply comes once it is stored), and answers a parked one. */
@Controller()
export class AgentStepHandler {
  constructor(private readonly runs: AgentRuns) {}

  @HandleRequest(agentStepContract.start)
  async start(@Payload() request: AgentStepStartRequest) {
    return { accepted: await this.runs.accept(request) };
  }

  /** `agent.step.answer`: an answer to a parked step, forwarded by the orchestrator's run API. */
  @HandleRequest(agentStepContract.answer)
  async answer(@Payload() request: AgentStepAnswerRequest) {
    return { outcome: await this.runs.answer(request) };
  }
}
