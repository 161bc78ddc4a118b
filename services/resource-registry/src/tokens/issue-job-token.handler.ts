import { registryIdentityContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { IssueJobTokenUseCase } from './issue-job-token.use-case.js';

@Controller()
export class IssueJobTokenHandler {
  constructor(private readonly jobTokens: IssueJobTokenUseCase) {}

  @HandleRequest(contract.issueJobToken)
  issue(
    @Payload() req: RequestOf<typeof contract.issueJobToken>,
  ): Promise<z.output<typeof contract.issueJobToken.reply>> {
    return this.jobTokens.issue(req);
  }

  @HandleRequest(contract.issueJobTokens)
  issueMany(
    @Payload() req: RequestOf<typeof contract.issueJobTokens>,
  ): Promise<z.output<typeof contract.issueJobTokens.reply>> {
    return this.jobTokens.issueMany(req.requests);
  }
}
