import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { PRICE_TABLE, type PriceTable } from '../budgets/price-table.js';
import { AUDIT_CONFIG, AUDIT_LOGGER, type AuditConfig } from './audit.config.js';
import { LlmCallAuditEntity } from './llm-call-audit.entity.js';
import { LlmCallAuditWriter } from './llm-call-audit.writer.js';
import { LlmCallRecorder } from './llm-call.recorder.js';

export const AUDIT_ENTITIES = [LlmCallAuditEntity];

/** The audit log and GenAI telemetry of provider calls (`LlmCallRecorder`). */
@Module({})
export class AuditModule {
  static forRoot(config: AuditConfig, logger: Logger, prices: PriceTable): DynamicModule {
    return {
      module: AuditModule,
      providers: [
        { provide: AUDIT_CONFIG, useValue: config },
        { provide: AUDIT_LOGGER, useValue: logger },
        { provide: PRICE_TABLE, useValue: prices },
        LlmCallAuditWriter,
        LlmCallRecorder,
      ],
      exports: [LlmCallRecorder],
    };
  }
}
