import { describe, expect, it } from 'vitest';
import {
  NewHttpTriggerSchema,
  routePathKey,
  routePathProblem,
  SignatureAuthResourceSchema,
  SetHttpTriggerEnabledRequestSchema,
} from './http-trigger.schema.js';

const base = {
  path: 'f/hooks/push',
  script_path: 'f/hooks/on_push',
  is_flow: false,
  http_method: 'post',
  authentication_method: 'none',
  route_path: 'repos/:owner/push',
};

describe('route paths (Windmill rules)', () => {
  it.each(['hello', 'repos/:owner/push', 'a-b/c_d/:x/:y', ':id'])('accepts %s', (path) => {
    expect(routePathProblem(path)).toBeUndefined();
  });

  it.each([
    ['', 'must not be empty'],
    ['/leading', 'must not start with "/"'],
    ['trailing/', 'empty segment'],
    ['a//b', 'empty segment'],
    ['a/b c', 'segment "b c"'],
    ['a/*rest', 'segment "*rest"'],
    ['users/:id/x/:id', 'parameter ":id" appears twice'],
  ])('refuses %j', (path, problem) => {
    expect(routePathProblem(path)).toContain(problem);
  });

  it('keys routes that answer the same requests alike, whatever their parameter names', () => {
    expect(routePathKey('users/:id/posts')).toBe(routePathKey('users/:name/posts'));
    expect(routePathKey('users/me/posts')).not.toBe(routePathKey('users/:id/posts'));
  });
});

describe('NewHttpTrigger', () => {
  it('takes Windmill’s body and drops fields it does not know', () => {
    const parsed = NewHttpTriggerSchema.parse({ ...base, is_static_website: false, extra_perms: {} });
    expect(parsed).not.toHaveProperty('extra_perms');
  });

  it('names each field it refuses', () => {
    const result = NewHttpTriggerSchema.safeParse({
      ...base,
      route_path: '/x',
      http_method: 'head',
      authentication_method: 'custom_script',
      is_static_website: true,
      request_type: 'sync_sse',
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join('.')).sort();
    expect(paths).toEqual([
      'authentication_method',
      'http_method',
      'is_static_website',
      'request_type',
      'route_path',
    ]);
  });
});

describe('auth resources and set_enabled', () => {
  it('reads Windmill’s provider names case-insensitively and needs a config for custom', () => {
    expect(
      SignatureAuthResourceSchema.parse({ signature_provider: 'Github', secret_key: 's' }).signature_provider,
    ).toBe('github');
    const custom = SignatureAuthResourceSchema.safeParse({ signature_provider: 'Custom', secret_key: 's' });
    expect(custom.error?.issues[0]?.path).toEqual(['authentication_config']);
  });

  it('needs enabled or mode', () => {
    const request = { actor: { token: 't' }, workspace: 'main', path: 'f/a/b' };
    expect(SetHttpTriggerEnabledRequestSchema.safeParse(request).success).toBe(false);
    expect(SetHttpTriggerEnabledRequestSchema.safeParse({ ...request, mode: 'disabled' }).success).toBe(true);
  });
});
