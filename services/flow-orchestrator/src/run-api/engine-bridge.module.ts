import { Module } from '@nestjs/common';
import { JobRepository } from '../jobs/job.repository.js';
import { JobsService } from '../jobs/jobs.service.js';
import { EXPRESSION_SANDBOX } from '../ports/index.js';
import { QuickJsExpressionSandbox } from '../sandbox/quickjs-expression.sandbox.js';

/**
 * What the run API needs from the engine (its `JobsService`, its job rows, the expression
 * sandbox), provided here until the engine exports a module of its own; the root module then
 * passes that one to `RunApiModule.forRoot` instead.
 */
@Module({
  providers: [
    JobsService,
    JobRepository,
    { provide: EXPRESSION_SANDBOX, useValue: new QuickJsExpressionSandbox() },
  ],
  exports: [JobsService, JobRepository, EXPRESSION_SANDBOX],
})
export class EngineBridgeModule {}
