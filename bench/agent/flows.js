// The flows and the mesh of bench/agent (run.js, trace.js): one agent step whose model asks for
// the `add` tool and then answers, and the floor, the same tool as a flow's one plain step. Both
// are saved flows run by path: memory is kept per saved flow (a preview's agent runs stateless),
// so the agent step really loads and saves its `window` memory.
import { createRegistryIdentityClient, createRegistryItemsClient } from '@flowmesh/contracts';
import { startFakeOpenAI } from '@flowmesh/testing';
import { startFlowmesh } from '../flows/flowmesh-runner.js';

const ADD = 'export function main(a: number, b: number) { return a + b; }';
const provider = { kind: 'openai', resource: '$res:f/bench/llm', model: 'gpt-4o-mini' };

/** A flow of one agent step (id `agent`) on the bench's model resource, with these inputs and tools. */
export function oneAgentStep(summary, inputs, tools) {
  return {
    summary,
    value: {
      modules: [
        {
          id: 'agent',
          value: {
            type: 'aiagent',
            input_transforms: { provider: { type: 'static', value: provider }, ...inputs },
            tools,
          },
        },
      ],
    },
  };
}

/** One agent step: the model asks for `add`, gets its result, answers; memory kept per run id. */
const agentFlow = oneAgentStep(
  'agent bench',
  {
    user_message: { type: 'static', value: 'Add 2 and 3.' },
    memory: { type: 'static', value: { kind: 'window', context_length: 10 } },
    memory_id: { type: 'javascript', expr: 'flow_input.memory' },
  },
  [
    {
      id: 'adder',
      summary: 'add',
      value: {
        tool_type: 'flowmodule',
        type: 'rawscript',
        language: 'bun',
        content: ADD,
        input_transforms: { a: { type: 'ai' }, b: { type: 'ai' } },
      },
    },
  ],
);

/** The floor: the tool as the flow's one step. */
const floorFlow = {
  summary: 'agent bench floor',
  value: {
    modules: [
      {
        id: 'add',
        value: {
          type: 'rawscript',
          language: 'bun',
          content: ADD,
          input_transforms: { a: { type: 'static', value: 2 }, b: { type: 'static', value: 3 } },
        },
      },
    ],
  },
};

/** The model: asks for the tool, then answers once the tool's result is in the conversation. */
function instantModel(request) {
  const messages = request.body.messages ?? [];
  return messages.at(-1)?.role === 'tool'
    ? { text: 'The sum is 5.' }
    : { toolCalls: [{ id: `call_${messages.length}`, name: 'add', arguments: '{"a":2,"b":3}' }] };
}

/**
 * The fake model (answering at once), the mesh with every process an agent step reaches (`env`
 * added to theirs), the provider resource and both flows saved; `agent(i)` and `floor()` run one
 * flow each (the agent's memory id one of 20 in turn), resolving with `{ id, ms }`.
 */
export async function startAgentBench({ env = {} } = {}) {
  const model = await startFakeOpenAI({ apiKey: 'sk-bench' });
  model.setDefaultReply(instantModel);
  const mesh = await startFlowmesh({
    processes: [
      'resource-registry',
      'flow-orchestrator',
      'flow-orchestrator-worker',
      'llm-gateway',
      'memory-service',
      'agent-runtime',
    ],
    env: { FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', ...env },
  });
  const stop = async () => {
    await mesh.stop();
    await model.close();
  };
  try {
    const items = createRegistryItemsClient(mesh.client);
    const inMain = { actor: mesh.actor, workspace: 'main' };
    await createRegistryIdentityClient(mesh.client).createFolder({ ...inMain, name: 'bench' });
    await items.createVariable({ ...inMain, path: 'f/bench/llm_key', value: 'sk-bench', is_secret: true });
    await items.createResource({
      ...inMain,
      path: 'f/bench/llm',
      resource_type: 'openai',
      value: { base_url: `${model.url}/v1`, api_key: '$var:f/bench/llm_key' },
    });
    await items.createFlow({ ...inMain, path: 'f/bench/agent', ...agentFlow });
    await items.createFlow({ ...inMain, path: 'f/bench/floor', ...floorFlow });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    model,
    mesh,
    agent: (i) => mesh.run({ path: 'f/bench/agent' }, { memory: `bench-${i % 20}` }),
    floor: () => mesh.run({ path: 'f/bench/floor' }, {}),
    stop,
  };
}
