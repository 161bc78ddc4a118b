/**
 * `nats://user:password@host:4222,nats://host2:4222` -> servers without credentials and the
 * user and password to log in with. The NATS client reads no credentials from a server URL, so
 * `NATS_URL` carrying them (as the services' configuration allows) is split here.
 */
export function splitNatsUrl(url: string): { servers: string[]; user?: string; pass?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean)
    .map((server) => {
      const match = /^([a-z][a-z0-9+.-]*:\/\/)([^@/]*)@(.*)$/i.exec(server);
      if (!match) return server;
      const [, scheme = '', credentials = '', rest = ''] = match;
      const colon = credentials.indexOf(':');
      user ??= decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
      if (colon >= 0) pass ??= decodeURIComponent(credentials.slice(colon + 1));
      return `${scheme}${rest}`;
    });
  return { servers, ...(user !== undefined ? { user } : {}), ...(pass !== undefined ? { pass } : {}) };
}
