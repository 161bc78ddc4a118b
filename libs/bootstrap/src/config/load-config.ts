import type { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config.error.js';
import { redactSetting } from './redact-setting.util.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** An empty variable (`FOO=` in an env file) means "not set", so defaults apply. */
function withoutEmpty(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
}

export type ConfigResult<T> = { ok: true; value: T } | { ok: false; problems: ConfigProblem[] };

/** Validates `env` against a schema whose keys are variable names; problems name the variable. */
export function checkConfig<S extends z.ZodType>(schema: S, env: Env): ConfigResult<z.output<S>> {
  const input = withoutEmpty(env);
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const problems = result.error.issues.map((issue): ConfigProblem => {
    const setting = String(issue.path[0] ?? '(environment)');
    const raw = input[setting];
    return raw === undefined
      ? { setting, problem: issue.message }
      : { setting, problem: issue.message, got: redactSetting(setting, raw) };
  });
  return { ok: false, problems };
}

/** Parses settings once at start; throws a ConfigError listing every problem. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env): z.output<S> {
  const result = checkConfig(schema, env);
  if (!result.ok) throw new ConfigError(result.problems);
  return result.value;
}
