import type { IncomingMessage, ServerResponse } from 'node:http';

export const SERVICE_HEADER = 'x-flowmesh-service';

/**
 * Every HTTP response names the service that produced it, a 404 included, so a request sent
 * through the entry point can be traced to the service that answered it.
 */
export function serviceHeaderMiddleware(service: string) {
  return (_req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    res.setHeader(SERVICE_HEADER, service);
    next();
  };
}
