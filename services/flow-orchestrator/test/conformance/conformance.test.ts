import { parseOpenFlow } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCases } from './support/flow-case.js';
import { startFlowMesh, type FlowMesh } from './support/flow-mesh.js';
import { runCase } from './support/run-case.js';

/**
 * The OpenFlow conformance suite: every file of flows/ is one flow with its arguments and the
 * exact result or error the spec (and, where it is terse, Windmill) gives it. All cases run
 * at once against one mesh (registry, orchestrator, worker as processes).
 */
const cases = loadCases();

/**
 * Engine gaps known today (issue 5's notes): these cases keep their exact expectations and are
 * reported as skipped until the engine does what they say. Remove a name once its case passes.
 */
const KNOWN_GAPS: ReadonlyMap<string, string> = new Map();

// Every case at once: they are independent (own fixtures paths, own directory, own keys).
vi.setConfig({ maxConcurrency: cases.length });

/** What the cases must cover between them: every module type and option of issue 5. */
const REQUIRED_COVERAGE = [
  'rawscript.bun',
  'rawscript.nativets',
  'rawscript.deno',
  'rawscript.python3',
  'rawscript.bash',
  'rawscript.postgresql',
  'rawscript.unsupported_language',
  'rawscript.tag',
  'rawscript.concurrent_limit',
  'script.path',
  'script.hash',
  'flow.path',
  'flow.empty',
  'forloopflow',
  'forloopflow.parallel',
  'forloopflow.parallelism',
  'forloopflow.skip_failures',
  'forloopflow.squash',
  'forloopflow.1000_items',
  'whileloopflow',
  'whileloopflow.results_own_id',
  'whileloopflow.skip_failures',
  'whileloopflow.parallel',
  'whileloopflow.squash',
  'branchone',
  'branchone.default',
  'branchall',
  'branchall.parallel',
  'branchall.sequential',
  'branchall.skip_failure',
  'identity',
  'aiagent',
  'aidecision',
  'input_transforms.static',
  'input_transforms.javascript.flow_input',
  'input_transforms.javascript.results',
  'input_transforms.javascript.iter_value',
  'input_transforms.javascript.iter_index',
  'input_transforms.javascript.previous_result',
  'input_transforms.static.var',
  'input_transforms.static.res',
  'skip_if',
  'stop_after_if',
  'stop_after_all_iters_if',
  'stop_after_if.skip_if_stopped',
  'stop_after_if.error_message',
  'stop_after_if.error_include_result',
  'sleep',
  'timeout',
  'retry.constant',
  'retry.exponential',
  'retry.retry_if',
  'continue_on_error',
  'cache_ttl.step',
  'cache_ttl.flow',
  'mock',
  'priority.step',
  'priority.flow',
  'delete_after_secs.step',
  'delete_after_secs.flow',
  'job_token_scopes',
  'debouncing.step',
  'suspend',
  'suspend.required_events',
  'suspend.timeout',
  'suspend.continue_on_disapprove_timeout',
  'suspend.resume_form',
  'suspend.user_auth_required',
  'suspend.user_groups_required',
  'suspend.self_approval_disabled',
  'suspend.disapproval',
  'failure_module',
  'preprocessor_module',
  'early_return',
  'skip_expr',
  'flow_env',
  'concurrent_limit',
  'concurrency_key',
  'concurrency_time_window_s',
  'debounce.flow',
  'debounce.max_total_debounces_amount',
  'same_worker',
  'on_behalf_of',
  'preserve_step_tags',
  'nesting',
  'notes',
  'groups',
  'flow_status',
  'errors',
];

describe('conformance case files', () => {
  it('are at least 80, each a valid OpenFlow flow with an expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
    const invalid = cases.flatMap((flowCase) => {
      const flows = [
        ...(flowCase.flow ? [flowCase.flow] : []),
        ...(flowCase.registry?.flows ?? []).map((saved) => ({ summary: saved.path, value: saved.value })),
      ];
      return flows.flatMap((flow) => {
        const parsed = parseOpenFlow(flow);
        return parsed.ok ? [] : [`${flowCase.file}: ${JSON.stringify(parsed.errors)}`];
      });
    });
    expect(invalid).toEqual([]);
  });

  it('together cover every module type and option of the issue', () => {
    const covered = new Set(cases.flatMap((flowCase) => flowCase.covers));
    expect(REQUIRED_COVERAGE.filter((tag) => !covered.has(tag))).toEqual([]);
  });
});

describe('OpenFlow conformance, one mesh', () => {
  let fm: FlowMesh | undefined;

  beforeAll(async () => {
    fm = await startFlowMesh();
  }, 180_000);

  afterAll(async () => {
    await fm?.stop();
  }, 180_000);

  const check = (flowCase: (typeof cases)[number]) => async () => {
    if (!fm) throw new Error('the mesh did not start');
    const { problems, jobs } = await runCase(fm, flowCase);
    const seen = jobs.map((job) => ({ id: job.id, status: job.status, result: job.result }));
    expect(problems, `${flowCase.file}; jobs: ${JSON.stringify(seen).slice(0, 2_000)}`).toEqual([]);
  };
  const title = (flowCase: (typeof cases)[number], gap: string | undefined) =>
    gap === undefined ? `${flowCase.name}: ${flowCase.summary}` : `${flowCase.name}: known gap: ${gap}`;

  for (const flowCase of cases.filter((c) => c.timing === undefined)) {
    const gap = KNOWN_GAPS.get(flowCase.name);
    (gap === undefined ? it.concurrent : it.skip)(title(flowCase, gap), check(flowCase), 420_000);
  }
  // Vitest runs a suite's consecutive concurrent tests as one group before the tests after it:
  // these start once the burst above has ended, one at a time.
  for (const flowCase of cases.filter((c) => c.timing !== undefined)) {
    const gap = KNOWN_GAPS.get(flowCase.name);
    it.skipIf(gap !== undefined)(
      `${title(flowCase, gap)} (on its own: ${flowCase.timing})`,
      check(flowCase),
      420_000,
    );
  }
});
