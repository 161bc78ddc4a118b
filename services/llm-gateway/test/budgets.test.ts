import { randomUUID } from 'node:crypto';
import {
  apiTokenPrefix,
  createGatewayBudgetClient,
  MeshError,
  type ChatEvent,
  type ChatRequestInput,
  type GatewayBudgetClient,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import { startFakeOpenAI, type FakeOpenAI } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatedUsage } from '../src/budgets/call-estimate.js';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Spend budgets through the gateway's NATS and HTTP interfaces, on real Postgres, against a fake
 * OpenAI: a call over a budget is refused before the provider is asked (`budget_exceeded`, the
 * user's fault, naming the budget), concurrent calls cannot pass a budget together, money is
 * priced by the table with the operator's prices, and only admins set budgets and read spend.
 */

const KEY = 'sk-budgets-0123456789';
const HOUSE_MODEL = 'fm-house-model';
/** The operator's prices: a model of their own, $1000 and $2000 per million tokens. */
const PRICES = { [`openai/${HOUSE_MODEL}`]: { input: 1000, output: 2000 } };
const MESSAGES: ChatRequestInput['messages'] = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
const OUTPUT_CAP = 100;
/** The tokens the gateway reserves for `chat(...)`'s call before it is made. */
const ESTIMATE = (() => {
  const usage = estimatedUsage({ messages: MESSAGES, maxOutputTokens: OUTPUT_CAP }, 512);
  return usage.inputTokens + usage.outputTokens;
})();

let cast: GatewayCast;
let openai: FakeOpenAI;
let budgets: GatewayBudgetClient;

beforeAll(async () => {
  cast = await startGatewayCast({
    gatewayEnv: { FLOWMESH_GATEWAY_MAX_ATTEMPTS: '1', FLOWMESH_GATEWAY_PRICES: JSON.stringify(PRICES) },
  });
  openai = await startFakeOpenAI({ apiKey: KEY });
  openai.setDefaultReply({ text: 'ok' });
  await cast.providerResource('f/ai/openai', 'openai', { base_url: `${openai.url}/v1` }, KEY);
  budgets = createGatewayBudgetClient(cast.registry.client);
}, 120_000);

afterAll(async () => {
  await openai?.close();
  await cast?.stop();
});

async function chat(
  run: string,
  extra: Partial<ChatRequestInput> = {},
): Promise<Extract<ChatEvent, { type: 'message' | 'error' }>> {
  const stream = await gatewayChat(cast.registry.conn, {
    actor: cast.reader,
    workspace: 'main',
    provider: { kind: 'openai', resource: 'f/ai/openai', model: 'gpt-4o-mini' },
    messages: MESSAGES,
    maxOutputTokens: OUTPUT_CAP,
    budget: { run, flow: 'f/ai/budgeted_flow' },
    ...extra,
  });
  const final = await stream.result;
  if (final.type !== 'message' && final.type !== 'error') throw new Error(`unexpected ${final.type}`);
  return final;
}

function setBudget(
  scope: 'run' | 'token',
  target: string,
  limits: { maxTokens?: number; maxUsd?: number },
): Promise<unknown> {
  return budgets.setBudget({ actor: cast.admin, workspace: 'main', scope, target, ...limits });
}

async function spendOf(scope: 'run' | 'flow' | 'token' | 'workspace', target?: string) {
  const { spend } = await budgets.listSpend({
    actor: cast.admin,
    workspace: 'main',
    scope,
    ...(target ? { target } : {}),
  });
  return spend[0];
}

describe('spend budgets', () => {
  it('stops a call over its run budget with budget_exceeded naming the budget, before the provider', async () => {
    const run = randomUUID();
    await setBudget('run', run, { maxTokens: 200 });
    openai.reply({ text: 'first', usage: { prompt_tokens: 100, completion_tokens: 100 } });
    expect((await chat(run)).type).toBe('message');

    const asked = openai.chatRequests().length;
    const refused = await chat(run);
    expect(refused).toMatchObject({
      type: 'error',
      error: { class: 'budget_exceeded', fault: 'user', budget: { scope: 'run', target: run } },
    });
    if (refused.type === 'error')
      expect(refused.error.message).toContain(`the budget of run ${run} is spent`);
    expect(openai.chatRequests().length).toBe(asked);
    expect(await spendOf('run', run)).toMatchObject({
      maxTokens: 200,
      spentTokens: 200,
      reservedTokens: 0,
    });
  });

  it('lets at most the calls that fit through when ten run at once', async () => {
    const run = randomUUID();
    // Room for three calls' estimates; each uses exactly its estimate.
    await setBudget('run', run, { maxTokens: 3 * ESTIMATE + 5 });
    openai.setDefaultReply({
      text: 'ok',
      usage: { prompt_tokens: ESTIMATE - OUTPUT_CAP, completion_tokens: OUTPUT_CAP },
    });
    try {
      const finals = await Promise.all(Array.from({ length: 10 }, () => chat(run)));
      const answered = finals.filter((final) => final.type === 'message').length;
      const refused = finals.filter(
        (final) => final.type === 'error' && final.error.class === 'budget_exceeded',
      ).length;
      expect({ answered, refused }).toEqual({ answered: 3, refused: 7 });
      expect(await spendOf('run', run)).toMatchObject({ spentTokens: 3 * ESTIMATE, reservedTokens: 0 });
    } finally {
      openai.setDefaultReply({ text: 'ok' });
    }
  });

  it('prices money budgets by the default table', async () => {
    const run = randomUUID();
    // gpt-4o-mini lists at $0.15 in and $0.60 out per million tokens: this answer costs $0.000075.
    await setBudget('run', run, { maxUsd: 0.0001 });
    openai.reply({ text: 'priced', usage: { prompt_tokens: 100, completion_tokens: 100 } });
    expect((await chat(run)).type).toBe('message');
    expect((await spendOf('run', run))?.spentUsd).toBeCloseTo(0.000075, 9);

    const refused = await chat(run);
    expect(refused).toMatchObject({ type: 'error', error: { class: 'budget_exceeded' } });
    if (refused.type === 'error') expect(refused.error.message).toContain('$0.000075 of its $0.0001 spent');
  });

  it("prices a model by the operator's table (FLOWMESH_GATEWAY_PRICES)", async () => {
    const run = randomUUID();
    const house = {
      provider: { kind: 'openai' as const, resource: 'f/ai/openai', model: HOUSE_MODEL },
      maxOutputTokens: 5,
    };
    openai.reply({ text: 'house', usage: { prompt_tokens: 10, completion_tokens: 5 } });
    expect((await chat(run, house)).type).toBe('message');
    // 10 tokens at $1000 and 5 at $2000 per million: $0.02 (the default table knows no such model).
    expect((await spendOf('run', run))?.spentUsd).toBeCloseTo(0.02, 9);

    await setBudget('run', run, { maxUsd: 0.03 });
    expect(await chat(run, house)).toMatchObject({ type: 'error', error: { class: 'budget_exceeded' } });
  });

  it("stops an API token's calls at its budget, and not another token's", async () => {
    const prefix = apiTokenPrefix(cast.reader.token);
    await setBudget('token', prefix, { maxTokens: 1 });
    try {
      const refused = await chat(randomUUID());
      expect(refused).toMatchObject({ type: 'error', error: { budget: { scope: 'token', target: prefix } } });
      if (refused.type === 'error')
        expect(refused.error.message).toContain(`the budget of API token ${prefix}`);
      expect((await chat(randomUUID(), { actor: cast.admin })).type).toBe('message');
    } finally {
      await budgets.deleteBudget({ actor: cast.admin, workspace: 'main', scope: 'token', target: prefix });
    }
    expect((await chat(randomUUID())).type).toBe('message');
  });

  it('counts every call toward its workspace and flow', async () => {
    const workspace = await spendOf('workspace');
    const flow = await spendOf('flow', 'f/ai/budgeted_flow');
    expect(workspace?.spentTokens).toBeGreaterThan(0);
    expect(flow?.spentTokens).toBe(workspace?.spentTokens);
  });

  it('lets only admins set budgets and read spend, over NATS and HTTP', async () => {
    const run = randomUUID();
    const denied = await budgets
      .setBudget({ actor: cast.reader, workspace: 'main', scope: 'run', target: run, maxTokens: 10 })
      .catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(MeshError);
    expect((denied as MeshError).code).toBe('PERMISSION_DENIED');
    const badTarget = await budgets
      .setBudget({ actor: cast.admin, workspace: 'main', scope: 'run', maxTokens: 10 })
      .catch((error: unknown) => error as MeshError);
    expect(badTarget).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((badTarget as MeshError).message).toContain('target');

    const base = `${cast.gateway.url}/api/w/main/ai`;
    const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const put = await fetch(`${base}/budgets`, {
      method: 'PUT',
      headers: as(cast.admin.token),
      body: JSON.stringify({ scope: 'run', target: run, maxTokens: 1000, maxUsd: 1.5 }),
    });
    expect(put.status).toBe(200);
    const read = await fetch(`${base}/spend?scope=run&target=${run}`, { headers: as(cast.admin.token) });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      spend: [{ scope: 'run', target: run, maxTokens: 1000, maxUsd: 1.5, spentTokens: 0 }],
    });
    const forbidden = await fetch(`${base}/spend`, { headers: as(cast.reader.token) });
    expect(forbidden.status).toBe(403);
    const removed = await fetch(`${base}/budgets?scope=run&target=${run}`, {
      method: 'DELETE',
      headers: as(cast.admin.token),
    });
    expect(await removed.json()).toEqual({ deleted: true });
  });
});
