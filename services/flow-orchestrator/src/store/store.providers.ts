import type { Provider } from '@nestjs/common';
import { AgentStepStore } from './agent-step.store.js';
import { ConcurrencySlotStore } from './concurrency-slot.store.js';
import { ConnectionLanes } from './connection-lanes.js';
import { DebounceStore } from './debounce.store.js';
import { JobListingStore } from './job-listing.store.js';
import { JobTokenStore } from './job-token.store.js';
import { JobStore } from './job.store.js';
import { LeaseStore } from './lease.store.js';
import { OutboxStore } from './outbox.store.js';
import { ResultCacheStore } from './result-cache.store.js';
import { ResumeStore } from './resume.store.js';
import { WorkspaceSettingsStore } from './workspace-settings.store.js';
import { WriteGroups } from './write-groups.js';

/** The engine's tables, one store each, over one set of connection lanes. */
export const STORE_PROVIDERS: Provider[] = [
  ConnectionLanes,
  WriteGroups,
  JobStore,
  JobListingStore,
  AgentStepStore,
  LeaseStore,
  JobTokenStore,
  ResumeStore,
  DebounceStore,
  ConcurrencySlotStore,
  ResultCacheStore,
  OutboxStore,
  WorkspaceSettingsStore,
];
