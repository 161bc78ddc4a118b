import { randomUUID } from 'node:crypto';
import {
  MeshError,
  RAW_SCRIPT_LANGUAGES,
  type CallerIdentity,
  type RunScriptRequest,
  type ScriptLanguage,
} from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_STEP_TAG } from '../engine/child-flows.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { isValidTag } from '../engine/step-tags.js';
import { JobTokens } from '../registry/job-tokens.js';
import { RegistryGateway } from '../registry/registry.gateway.js';
import { creatorOf, principalOf } from './job-identity.js';
import { runInputOf, scriptHasPreprocessor } from './preprocessor.js';
import { startsWithRunToken } from './run-token.js';
import type { JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';

/** Starts a script run (a saved script by path and hash, or inline code): one job, queued durably for its tag. */
@Injectable()
export class RunScriptUseCase {
  constructor(
    private readonly jobs: JobStore,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    private readonly outbox: EngineOutbox,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  async run(req: RunScriptRequest, identity: CallerIdentity): Promise<string> {
    const jobId = req.job_id ?? randomUUID();
    if (req.job_id && (await this.jobs.load(jobId))) return jobId;
    let code: {
      kind: 'script' | 'preview';
      language: ScriptLanguage;
      content: string;
      lock: string | null;
      path: string | null;
      hash: string | null;
    };
    const saved = req.path !== undefined && req.content === undefined ? req.path : null;
    // A run token reads the script as the run it starts (its principal's permissions).
    const runPath = saved !== null && startsWithRunToken(identity, saved, 'scripts') ? saved : undefined;
    if (saved === null) startsWithRunToken(identity, null, 'scripts');
    const principal = principalOf(identity);
    const issue = () =>
      this.registry.issueJobToken({
        token: req.actor.token,
        workspace: req.workspace,
        jobId,
        onBehalfOf: principal,
        ttlSeconds: this.config.jobTokenTtlSeconds,
        ...(runPath === undefined ? {} : { runPath, runKind: 'scripts' as const }),
      });
    const asRun = runPath === undefined ? undefined : await issue();
    if (saved !== null) {
      const reader = asRun?.token ?? req.actor.token;
      const script = await this.registry.getScript(reader, req.workspace, saved, req.hash);
      code = {
        kind: 'script',
        language: script.language,
        content: script.content,
        lock: script.lock,
        path: script.path,
        hash: script.hash,
      };
    } else {
      const language = req.language as ScriptLanguage;
      if (!(RAW_SCRIPT_LANGUAGES as readonly string[]).includes(language)) {
        throw new MeshError('VALIDATION_FAILED', `unknown script language "${req.language}"`, {
          issues: [{ path: 'language', message: `expected one of ${RAW_SCRIPT_LANGUAGES.join(', ')}` }],
        });
      }
      code = {
        kind: 'preview',
        language,
        content: req.content!,
        lock: req.lock ?? null,
        path: req.path ?? null,
        hash: null,
      };
    }
    const tag = req.tag ?? DEFAULT_STEP_TAG;
    if (!isValidTag(tag)) throw new MeshError('VALIDATION_FAILED', `"${tag}" is not a worker tag`);
    const issued = asRun ?? (await issue());
    const input = runInputOf(req, scriptHasPreprocessor(code.language, code.content));
    const scheduledFor = req.scheduled_for ? new Date(req.scheduled_for) : null;
    const record: JobRecord = {
      id: jobId,
      workspace: req.workspace,
      kind: code.kind,
      parent_job: null,
      root_job: jobId,
      path: code.path,
      script_hash: code.hash,
      flow_step_id: null,
      language: code.language,
      raw_code: code.content,
      raw_lock: code.lock,
      raw_flow: null,
      args: input.args,
      status: 'queued',
      result: null,
      flow_status: null,
      // A preprocessor runs in the job itself, before `main` (as Windmill's wrappers run it).
      runtime: {
        tokenJob: jobId,
        dispatched: true,
        ...(input.preprocess ? { applyPreprocessor: true } : {}),
      },
      created_by: creatorOf(identity),
      on_behalf_of: principal,
      email: identity.email,
      tag,
      priority: req.priority ?? null,
      skipped: false,
      canceled_by: null,
      canceled_reason: null,
      created_at: new Date(),
      scheduled_for: scheduledFor,
      started_at: null,
      completed_at: null,
      duration_ms: null,
      wake_at: scheduledFor && scheduledFor.getTime() > Date.now() ? scheduledFor : null,
      wake_seq: 0,
      trigger_kind: req.trigger?.kind ?? null,
      trigger_path: req.trigger?.path ?? null,
    };
    const statements = [
      this.tokens.store(jobId, issued.token, issued.expiresAt),
      this.jobs.insert(record, { onConflictDoNothing: true }),
    ];
    if (!record.wake_at) statements.push(this.jobs.dispatch(record));
    await this.jobs.execute(statements);
    this.outbox.afterCommit(statements);
    return jobId;
  }
}
