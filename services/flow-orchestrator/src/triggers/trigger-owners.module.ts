import { Module } from '@nestjs/common';
import { OwnerTokens } from './owner-tokens.js';

/** `OwnerTokens` for every kind of trigger (the engine module, global, gives it the sealer and NATS). */
@Module({ providers: [OwnerTokens], exports: [OwnerTokens] })
export class TriggerOwnersModule {}
