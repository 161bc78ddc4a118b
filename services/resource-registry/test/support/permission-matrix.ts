import { MeshError, type ErrorCode } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { ACTORS, type Actor, type ActorName, type RegistryCast } from './registry-cast.js';

/**
 * A permission matrix: one row per operation, one expected outcome per actor of the cast. An
 * operation succeeds (`ok`), answers `false` (`denied`, for checks like `registry.access.check`),
 * or fails with a mesh error code. Add rows for new operations in a test file of your own:
 *
 *     describePermissionMatrix('resources', () => cast, [
 *       { operation: 'get f/team/r', prepare: (cast) => createResource(cast, ...),
 *         run: (cast, actor, path) => items.getResource({ actor: { token: actor.token }, ... }),
 *         expect: outcomes('ok', { stranger: 'NOT_FOUND' }) },
 *     ]);
 */
export type Outcome = 'ok' | 'denied' | ErrorCode;

export interface MatrixRow<Prepared = unknown> {
  readonly operation: string;
  /** Runs once per cell, before it, as whoever it likes (a fresh target for a delete, say). */
  readonly prepare?: (cast: RegistryCast, actor: ActorName) => Promise<Prepared>;
  readonly run: (cast: RegistryCast, actor: Actor, prepared: Prepared) => Promise<unknown>;
  readonly expect: Readonly<Record<ActorName, Outcome>>;
}

/** Every actor gets `base` except the overrides; expired and revoked tokens are UNAUTHENTICATED unless said otherwise. */
export function outcomes(
  base: Outcome,
  overrides: Partial<Record<ActorName, Outcome>> = {},
): Record<ActorName, Outcome> {
  const all = Object.fromEntries(ACTORS.map((name) => [name, base])) as Record<ActorName, Outcome>;
  return { ...all, expired: 'UNAUTHENTICATED', revoked: 'UNAUTHENTICATED', ...overrides };
}

/** Lets a row whose `prepare` returns something type its `run`. */
export function row<Prepared>(definition: MatrixRow<Prepared>): MatrixRow<unknown> {
  return definition as MatrixRow<unknown>;
}

export async function outcomeOf(action: () => Promise<unknown>): Promise<Outcome> {
  try {
    return (await action()) === false ? 'denied' : 'ok';
  } catch (error) {
    if (error instanceof MeshError) return error.code;
    throw error;
  }
}

/** One test per cell: `<operation> as <actor> -> <outcome>`. */
export function describePermissionMatrix(
  title: string,
  cast: () => RegistryCast,
  rows: readonly MatrixRow[],
): void {
  describe(title, () => {
    for (const definition of rows) {
      describe(definition.operation, () => {
        it.each(ACTORS.map((name) => [name, definition.expect[name]] as const))(
          'as %s -> %s',
          async (name, expected) => {
            const current = cast();
            const prepared = definition.prepare ? await definition.prepare(current, name) : undefined;
            const outcome = await outcomeOf(() => definition.run(current, current.actors[name], prepared));
            expect(outcome).toBe(expected);
          },
        );
      });
    }
  });
}
