import { Module } from '@nestjs/common';
import { OwnerTokens } from './owner-tokens.js';
import { TriggerMetrics } from './trigger.metrics.js';

/**
 * What every kind of trigger uses: `OwnerTokens` (acting as the trigger's owner) and
 * `TriggerMetrics` (one set of series, labelled by kind). The engine module, global, gives them
 * the sealer and NATS.
 */
@Module({ providers: [OwnerTokens, TriggerMetrics], exports: [OwnerTokens, TriggerMetrics] })
export class TriggersSharedModule {}
