import { registerHooks } from 'node:module';

/**
 * For a thread or process entry run straight from its TypeScript sources (tests): Node strips the
 * types itself, but siblings are imported as `.js`, which only a build produces; this maps them
 * back to `.ts`. The entry imports its siblings dynamically, after calling it.
 */
export function resolveTypeScriptSiblings(): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier.startsWith('.') && specifier.endsWith('.js')) {
        try {
          return nextResolve(specifier, context);
        } catch {
          return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
        }
      }
      return nextResolve(specifier, context);
    },
  });
}
