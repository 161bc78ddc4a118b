/** What npm may see of a service's environment: how to reach its registry, nothing else. */
const NPM_ENV =
  /^(PATH|HOME|USERPROFILE|APPDATA|TMPDIR|TEMP|TMP|SystemRoot|NODE_EXTRA_CA_CERTS|npm_config_.+|NPM_CONFIG_.+|HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy)$/;

/**
 * The environment an `npm` child process gets (dependency-locker's locks, the workers' installs):
 * the path, the home and temp directories, npm's own settings and proxies. Never the service's
 * database URL, NATS credentials or keys.
 */
export function npmEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => NPM_ENV.test(key)));
}
