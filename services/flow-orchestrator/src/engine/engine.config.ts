import type { SecretKeyring } from '@flowmesh/keyring';

/** The engine's settings, from `FlowOrchestratorConfig` (environment, parsed once at start). */
export interface EngineConfig {
  /** This process, as the owner of the flow jobs it drives. */
  readonly instanceId: string;
  /** Worker tags this process takes work for (empty in the API role). */
  readonly workerTags: readonly string[];
  /** Work messages handled at once per tag. */
  readonly workerConcurrency: number;
  /** How long a work message may go unacknowledged before JetStream hands it to another worker. */
  readonly ackWaitMs: number;
  /** How long a flow job stays owned by a process that stopped renewing it (less than ackWaitMs). */
  readonly leaseTtlMs: number;
  /** A script job's time limit when its step sets none. */
  readonly defaultTimeoutMs: number;
  readonly defaultMemoryMb: number;
  readonly jobTokenTtlSeconds: number;
  /** A step running longer than this shows InProgress and writes its logs as they come. */
  readonly liveAfterMs: number;
  /** How often parked jobs whose time has come are woken. */
  readonly timerPollMs: number;
  /** In-process children of one parallel loop or branch running at once, when the flow sets no parallelism. */
  readonly maxInlineParallelism: number;
  /** Saved flows one run may nest (`FLOWMESH_MAX_FLOW_DEPTH`). */
  readonly maxFlowDepth: number;
  /** Seal the runs' job tokens at rest (`JobTokenSealer`). */
  readonly jobTokenKeys: SecretKeyring;
}

export const ENGINE_CONFIG = Symbol('ENGINE_CONFIG');
