/**
 * The workspace scripts a job imports (`/f/lib/a`, `./a`, `../x/a`), read before it starts
 * (`workspace-imports.ts`) and handed to wherever it runs (a thread, a process) with the job: no
 * script is fetched while the job runs, and the job never holds a way to ask for one.
 */
export interface WorkspaceModules {
  /** The URL of an importing module (`moduleUrl`) -> its workspace imports: specifier -> script path. */
  readonly imports: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Script path (`f/lib/a`) -> its module function source (`esm-to-script.util.ts`). */
  readonly modules: Readonly<Record<string, string>>;
}

/** The URL a module runs as (`import.meta.url`, stack traces): the job's own, or an imported script's. */
export function moduleUrl(path: string | null | undefined): string {
  return `file:///${path ?? 'script'}.ts`;
}

/**
 * Loads the workspace scripts of one job, each evaluated once (`evaluate` runs a module function in
 * the job's realm) however many modules import it. Answers undefined for an import that is not one
 * of them (a package, a built-in): the caller's to load.
 */
export function workspaceModuleLoader(
  workspace: WorkspaceModules,
  evaluate: (functionSource: string, url: string) => Promise<unknown>,
): (specifier: string, importerUrl: string) => Promise<unknown> | undefined {
  const loaded = new Map<string, Promise<unknown>>();
  return (specifier, importerUrl) => {
    const path = workspace.imports[importerUrl]?.[specifier];
    const source = path === undefined ? undefined : workspace.modules[path];
    if (path === undefined || source === undefined) return undefined;
    let module = loaded.get(path);
    if (!module) {
      module = evaluate(source, moduleUrl(path));
      loaded.set(path, module);
    }
    return module;
  };
}
