import { DeployOrderSchema, type CallerIdentity, type DeployOrder } from '@flowmesh/contracts';
import { requireBearerToken, validateWith } from '@flowmesh/http';
import {
  Body,
  Controller,
  createParamDecorator,
  HttpCode,
  Post,
  UseGuards,
  type ExecutionContext,
} from '@nestjs/common';
import { BearerAuthGuard, type AuthenticatedRequest } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { DeployService } from './deploy.service.js';

/** The caller's bearer token (already checked by the guard): a deploy authenticates it in the target workspace too. */
const BearerToken = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  return requireBearerToken(context.switchToHttp().getRequest<AuthenticatedRequest>().headers.authorization);
});

const order = validateWith(DeployOrderSchema);

/** `/api/w/:workspace/deploy/{plan,apply}`: deploy items of this workspace, with what they need, to another. */
@Controller('api/w/:workspace/deploy')
@UseGuards(BearerAuthGuard)
export class DeployController {
  constructor(private readonly deploy: DeployService) {}

  @Post('plan')
  @HttpCode(200)
  plan(
    @CurrentIdentity() identity: CallerIdentity,
    @BearerToken() token: string,
    @Body(order) body: DeployOrder,
  ) {
    return this.deploy.plan(identity, token, body);
  }

  @Post('apply')
  @HttpCode(200)
  apply(
    @CurrentIdentity() identity: CallerIdentity,
    @BearerToken() token: string,
    @Body(order) body: DeployOrder,
  ) {
    return this.deploy.apply(identity, token, body);
  }
}
