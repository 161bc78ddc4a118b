import { registryIdentityContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { IssueJobTokenService } from './issue-job-token.service.js';

@Controller()
export class IssueJobTokenHandler {
  constructor(private readonly jobTokens: IssueJobTokenService) {}

  @HandleRequest(contract.issueJobToken)
  issue(
    @Payload() req: z.output<typeof contract.issueJobToken.request>,
  ): Promise<z.output<typeof contract.issueJobToken.reply>> {
    return this.jobTokens.issue(req);
  }

  @HandleRequest(contract.issueJobTokens)
  issueMany(
    @Payload() req: z.output<typeof contract.issueJobTokens.request>,
  ): Promise<z.output<typeof contract.issueJobTokens.reply>> {
    return this.jobTokens.issueMany(req.requests);
  }
}
