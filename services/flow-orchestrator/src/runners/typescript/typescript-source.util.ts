import { stripTypeScriptTypes } from 'node:module';
import { ModuleSyntaxError, moduleImports, moduleToFunctionSource } from './esm-to-script.util.js';

/**
 * A TypeScript script as the source of its async module function (`esm-to-script.util.ts`):
 * types erased by Node's own stripping, or transformed where erasing is not enough (enums,
 * namespaces, parameter properties). Throws `ModuleSyntaxError`.
 */
export function scriptFunctionSource(source: string): string {
  return moduleToFunctionSource(typescriptToJavaScript(source));
}

/** The modules a TypeScript script imports by name. Throws `ModuleSyntaxError`. */
export function scriptImports(source: string): string[] {
  return moduleImports(typescriptToJavaScript(source));
}

function typescriptToJavaScript(source: string): string {
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
      throw new ModuleSyntaxError((error as Error).message);
    }
  }
  try {
    return stripTypeScriptTypes(source, { mode: 'transform' });
  } catch (error) {
    throw new ModuleSyntaxError((error as Error).message);
  }
}
