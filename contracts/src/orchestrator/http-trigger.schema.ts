import { z } from 'zod';
import { ItemPathSchema, WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';

/**
 * HTTP routes (Windmill's HTTP triggers): a user-defined route served at the mesh's entry point,
 * `/api/r/<route_path>` (or `/api/r/<workspace>/<route_path>` with `workspaced_route`), that runs
 * a script or a flow. Field names are Windmill's (`NewHttpTrigger`, `EditHttpTrigger`,
 * `HttpTrigger` of its openapi), so a Windmill route moves over unchanged.
 */

/** The methods a route answers, as Windmill writes them. */
export const HTTP_TRIGGER_METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
export const HttpTriggerMethodSchema = z.enum(HTTP_TRIGGER_METHODS);
export type HttpTriggerMethod = z.infer<typeof HttpTriggerMethodSchema>;

/**
 * How a request proves it may run the route: `none` (public), `windmill` (a bearer token of the
 * route's workspace; the run is the caller's), `api_key` / `basic_http` / `signature` (checked
 * against the resource at `authentication_resource_path`; the run is the route owner's).
 */
export const HTTP_TRIGGER_AUTHENTICATION_METHODS = [
  'none',
  'windmill',
  'api_key',
  'basic_http',
  'signature',
] as const;
export const HttpTriggerAuthenticationMethodSchema = z.enum(HTTP_TRIGGER_AUTHENTICATION_METHODS, {
  error: `must be one of ${HTTP_TRIGGER_AUTHENTICATION_METHODS.join(', ')} (custom_script is not supported)`,
});
export type HttpTriggerAuthenticationMethod = z.infer<typeof HttpTriggerAuthenticationMethodSchema>;

/** `sync`: the answer is the run's result; `async`: 201 and the job id at once. */
export const HttpTriggerRequestTypeSchema = z.enum(['sync', 'async'], {
  error: 'must be sync or async (sync_sse is not supported)',
});
export type HttpTriggerRequestType = z.infer<typeof HttpTriggerRequestTypeSchema>;

/** Windmill's trigger `mode`: a disabled route answers 404 as if it did not exist. */
export const HttpTriggerModeSchema = z.enum(['enabled', 'disabled'], {
  error: 'must be enabled or disabled (suspended is not supported)',
});
export type HttpTriggerMode = z.infer<typeof HttpTriggerModeSchema>;

/** The longest route path accepted. */
export const MAX_ROUTE_PATH_LENGTH = 255;

const ROUTE_SEGMENT = /^:?[-\w]+$/;

/**
 * `undefined` when `routePath` is a valid route path, else why not. Windmill's rule: segments of
 * letters, digits, `_` and `-`, separated by `/`, no leading or trailing `/`; a segment
 * `:name` is a parameter (each name once).
 */
export function routePathProblem(routePath: string): string | undefined {
  if (routePath.length === 0) return 'must not be empty';
  if (routePath.length > MAX_ROUTE_PATH_LENGTH) return `must be at most ${MAX_ROUTE_PATH_LENGTH} characters`;
  if (routePath.startsWith('/')) return 'must not start with "/" (it is served under /api/r/)';
  const segments = routePath.split('/');
  const bad = segments.find((segment) => !ROUTE_SEGMENT.test(segment));
  if (bad !== undefined) {
    return bad === ''
      ? 'must not hold an empty segment or end with "/"'
      : `segment "${bad}" must be letters, digits, '_' or '-', or ':' and a parameter name`;
  }
  const names = segments.filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) return `parameter ":${twice}" appears twice`;
  return undefined;
}

export const RoutePathSchema = z.string().superRefine((value, ctx) => {
  const problem = routePathProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** What two routes share when they would answer the same requests: `users/:id` -> `users/:`. */
export function routePathKey(routePath: string): string {
  return routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') ? ':' : segment))
    .join('/');
}

const text = z.string().max(10_000).nullish();

/** Fields Windmill has that flowmesh does not serve yet: refused rather than silently ignored. */
const unsupported = (what: string) =>
  z
    .unknown()
    .refine((value) => value === undefined || value === null || value === false, {
      message: `${what} is not supported`,
    })
    .optional();

const triggerFields = {
  /** The trigger's own item path (`u/<user>/...`, `f/<folder>/...`): who may see and edit it. */
  path: ItemPathSchema,
  /** The script or flow it runs. */
  script_path: ItemPathSchema,
  is_flow: z.boolean(),
  http_method: HttpTriggerMethodSchema,
  authentication_method: HttpTriggerAuthenticationMethodSchema,
  /** The resource holding the API key, the basic credentials or the signature secret. */
  authentication_resource_path: ItemPathSchema.nullish(),
  request_type: HttpTriggerRequestTypeSchema.optional(),
  /** Windmill's older flag: `true` is `request_type: async`. `request_type` wins when both are given. */
  is_async: z.boolean().optional(),
  /** The route is served under `/api/r/<workspace>/`. */
  workspaced_route: z.boolean().nullish(),
  /** The body (an object) is passed as `{ body }` instead of as the arguments themselves. */
  wrap_body: z.boolean().nullish(),
  /** The raw body, as text, is passed as the argument `raw_string`. */
  raw_string: z.boolean().nullish(),
  summary: text,
  description: text,
  mode: HttpTriggerModeSchema.optional(),
  /** Windmill's older switch: `false` is `mode: disabled`. `mode` wins when both are given. */
  enabled: z.boolean().optional(),
  is_static_website: unsupported('is_static_website (static websites)'),
  static_asset_config: unsupported('static_asset_config (static assets)'),
  error_handler_path: unsupported('error_handler_path (per-trigger error handlers)'),
  retry: unsupported('retry (per-trigger retries)'),
};

/** `NewHttpTrigger`: what `create` takes. Unknown fields are dropped. */
export const NewHttpTriggerSchema = z.object({ ...triggerFields, route_path: RoutePathSchema });
export type NewHttpTrigger = z.infer<typeof NewHttpTriggerSchema>;

/** `EditHttpTrigger`: what `update` takes (`path` is the new path; `route_path` required, as Windmill's admin edit). */
export const EditHttpTriggerSchema = NewHttpTriggerSchema;
export type EditHttpTrigger = z.infer<typeof EditHttpTriggerSchema>;

/** `HttpTrigger`: a route as every read answers it. */
export const HttpTriggerSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  route_path: z.string(),
  route_path_key: z.string(),
  script_path: z.string(),
  is_flow: z.boolean(),
  http_method: HttpTriggerMethodSchema,
  request_type: HttpTriggerRequestTypeSchema,
  /** Windmill's older field, kept for its clients: `request_type === 'async'`. */
  is_async: z.boolean(),
  authentication_method: HttpTriggerAuthenticationMethodSchema,
  authentication_resource_path: z.string().nullable(),
  workspaced_route: z.boolean(),
  wrap_body: z.boolean(),
  raw_string: z.boolean(),
  summary: z.string().nullable(),
  description: z.string().nullable(),
  mode: HttpTriggerModeSchema,
  enabled: z.boolean(),
  is_static_website: z.boolean(),
  /** The last editor, whom the route's runs act as (unless `windmill` auth: the caller). */
  edited_by: z.string(),
  edited_at: z.string(),
  email: z.string(),
  /** `u/<user>`: the identity runs are started as (Windmill's `permissioned_as`). */
  permissioned_as: z.string(),
  extra_perms: z.record(z.string(), z.boolean()),
});
export type HttpTrigger = z.infer<typeof HttpTriggerSchema>;

const caller = { actor: ActorSchema, workspace: WorkspaceIdSchema };

export const CreateHttpTriggerRequestSchema = z.object({ ...caller, trigger: NewHttpTriggerSchema }).strict();
export type CreateHttpTriggerRequest = z.infer<typeof CreateHttpTriggerRequestSchema>;

/** `path`: the route's current path; `trigger.path` its new one (a rename when they differ). */
export const UpdateHttpTriggerRequestSchema = z
  .object({ ...caller, path: ItemPathSchema, trigger: EditHttpTriggerSchema })
  .strict();
export type UpdateHttpTriggerRequest = z.infer<typeof UpdateHttpTriggerRequestSchema>;

export const HttpTriggerPathRequestSchema = z.object({ ...caller, path: ItemPathSchema }).strict();
export type HttpTriggerPathRequest = z.infer<typeof HttpTriggerPathRequestSchema>;

/** Windmill's list query: `path` filters on the runnable's path, `path_start` on the trigger's. */
export const ListHttpTriggersRequestSchema = z
  .object({
    ...caller,
    path: z.string().max(255).optional(),
    is_flow: z.boolean().optional(),
    path_start: z.string().max(255).optional(),
    page: z.number().int().min(1).optional(),
    per_page: z.number().int().min(1).max(1_000).optional(),
  })
  .strict();
export type ListHttpTriggersRequest = z.infer<typeof ListHttpTriggersRequestSchema>;
export const ListHttpTriggersReplySchema = z.object({ triggers: z.array(HttpTriggerSchema) });

/** Windmill's `setenabled` (`enabled`) and `setmode` (`mode`): one of them. */
export const SetHttpTriggerEnabledRequestSchema = z
  .object({
    ...caller,
    path: ItemPathSchema,
    enabled: z.boolean().optional(),
    mode: HttpTriggerModeSchema.optional(),
  })
  .strict()
  .refine((request) => request.enabled !== undefined || request.mode !== undefined, {
    message: 'give enabled (true or false) or mode (enabled or disabled)',
    path: ['enabled'],
  });
export type SetHttpTriggerEnabledRequest = z.infer<typeof SetHttpTriggerEnabledRequestSchema>;

/** Windmill's `route_exists`: would this route and method clash with another route? */
export const HttpRouteExistsRequestSchema = z
  .object({
    ...caller,
    route_path: z.string().min(1).max(MAX_ROUTE_PATH_LENGTH),
    http_method: HttpTriggerMethodSchema,
    /** The route being edited, which does not clash with itself. */
    trigger_path: z.string().optional(),
    workspaced_route: z.boolean().nullish(),
  })
  .strict();
export type HttpRouteExistsRequest = z.infer<typeof HttpRouteExistsRequestSchema>;

export const HttpTriggerExistsReplySchema = z.object({ exists: z.boolean() });
export const HttpTriggerDeletedReplySchema = z.object({ deleted: z.literal(true) });

// ---- What the resource at `authentication_resource_path` holds (Windmill's shapes) ----

/** `api_key`: the request carries `api_key_secret` in the header `api_key_header`. */
export const ApiKeyAuthResourceSchema = z.object({
  api_key_header: z.string().min(1).max(256),
  api_key_secret: z.string().min(1),
});

/** `basic_http`: `Authorization: Basic base64(username:password)`. */
export const BasicAuthResourceSchema = z.object({
  username: z.string().min(1),
  password: z.string(),
});

/**
 * `signature`: an HMAC over the raw body. Providers as Windmill names them: `github`
 * (`X-Hub-Signature-256: sha256=<hex>`), `stripe` (`Stripe-Signature: t=<ts>,v1=<hex>` over
 * `<ts>.<body>`, at most 5 minutes old), `slack` (`X-Slack-Signature: v0=<hex>` over
 * `v0:<ts>:<body>`), `custom` (`authentication_config` says the header, algorithm, encoding and
 * prefix). Names are case-insensitive (Windmill writes `Github`, `Stripe`, `Custom`).
 */
export const SIGNATURE_PROVIDERS = ['github', 'stripe', 'slack', 'custom'] as const;
export const SignatureProviderSchema = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(SIGNATURE_PROVIDERS, { error: `must be one of ${SIGNATURE_PROVIDERS.join(', ')}` }));

export const SignatureAuthConfigSchema = z.object({
  algorithm: z.enum(['sha1', 'sha256', 'sha512']).default('sha256'),
  encoding: z.enum(['hex', 'base64', 'base64uri']).default('hex'),
  signature_header_name: z.string().min(1).max(256),
  signature_prefix: z.string().max(64).nullish(),
});

export const SignatureAuthResourceSchema = z
  .object({
    signature_provider: SignatureProviderSchema,
    secret_key: z.string().min(1),
    authentication_config: SignatureAuthConfigSchema.nullish(),
  })
  .refine((value) => value.signature_provider !== 'custom' || value.authentication_config, {
    message: 'a custom signature needs authentication_config (signature_header_name, algorithm, encoding)',
    path: ['authentication_config'],
  });
export type SignatureAuthResource = z.infer<typeof SignatureAuthResourceSchema>;
