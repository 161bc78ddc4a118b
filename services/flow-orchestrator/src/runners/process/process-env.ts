/**
 * The whole environment of a subprocess job: the job's own variables over a small base. The
 * worker's environment (database URL, NATS credentials, ...) is never passed on.
 */
export function processEnv(
  base: { readonly path: string; readonly workdir: string },
  jobEnv: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    PATH: base.path,
    HOME: base.workdir,
    TMPDIR: base.workdir,
    LANG: 'C.UTF-8',
    ...jobEnv,
    ...extra,
  };
}
