import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The architecture rules of eslint.config.js, checked on snippets at virtual paths (type
// information is switched off because the files do not exist; the boundary rules need none).

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
});

async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport {};\n`, { filePath });
  const fatal = result.messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'flowmesh/no-relative-escape')
    .map((m) => m.message);
}

describe('eslint architecture rules', () => {
  it.each([
    ['services/agent-runtime/src/agent/run.ts', "import { x } from '@flowmesh/llm-gateway';"],
    [
      'services/agent-runtime/src/agent/run.ts',
      "import type { X } from '@flowmesh/memory-service/src/x.js';",
    ],
    [
      'services/agent-runtime/src/agent/run.ts',
      "import { x } from '../../../llm-gateway/src/providers/openai.js';",
    ],
    ['services/agent-runtime/test/run.test.ts', "export { x } from '../../flow-orchestrator/src/main.js';"],
    ['services/llm-gateway/src/main.ts', "import { x } from '../../../libs/messaging/src/index.js';"],
    ['services/llm-gateway/src/main.ts', "import { x } from '@flowmesh/cli';"],
    ['libs/messaging/src/transport.ts', "import { x } from '@flowmesh/resource-registry';"],
    ['libs/messaging/src/transport.ts', "import { x } from '../../../services/resource-registry/src/x.js';"],
    ['contracts/src/index.ts', "import { x } from '@flowmesh/flow-orchestrator';"],
    ['contracts/src/http/routes.ts', "import { x } from '../../../libs/messaging/src/index.js';"],
    ['libs/testing/src/mesh/start.ts', "const m = await import('../../../messaging/src/index.js');"],
    ['cli/src/commands/status.ts', "import { x } from '../../../services/llm-gateway/src/main.js';"],
  ])('%s may not: %s', async (file, source) => {
    expect(await boundaryErrors(file, source)).toHaveLength(1);
  });

  it.each([
    ['services/agent-runtime/src/agent/run.ts', "import { x } from '@flowmesh/contracts';"],
    ['services/agent-runtime/src/agent/run.ts', "import { x } from '@flowmesh/messaging';"],
    ['services/agent-runtime/src/agent/run.ts', "import { x } from '../tools/tool.js';"],
    ['services/agent-runtime/test/run.test.ts', "import { x } from '../src/agent/run.js';"],
    ['services/agent-runtime/test/run.test.ts', "import { x } from '@flowmesh/testing';"],
    ['libs/messaging/src/transport.ts', "import { x } from '@flowmesh/contracts';"],
    ['libs/messaging/src/transport.ts', "import { x } from './nats/connection.js';"],
    ['contracts/src/http/routes.ts', "import { x } from '../services/service-names.js';"],
    ['libs/testing/src/mesh/start.ts', "import { x } from '@flowmesh/cli';"],
    ['e2e/mesh.test.ts', "import { x } from '../services/llm-gateway/src/main.js';"],
  ])('%s may: %s', async (file, source) => {
    expect(await boundaryErrors(file, source)).toEqual([]);
  });
});
