import { readFileSync } from 'node:fs';
import { HTTP_ROUTES, routePattern, SERVICE_NAMES } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutesFile, ROUTES_FILE } from '../scripts/sync-routes.js';

describe('helm/flowmesh/files/routes.json', () => {
  it('is what the contracts route table produces today', () => {
    const checkedIn = readFileSync(ROUTES_FILE, 'utf8');
    const expected = renderRoutesFile();
    // A stale file means the Ingress routes differently from `npm start`.
    expect(
      checkedIn === expected,
      'helm/flowmesh/files/routes.json is stale: run `npm run routes:sync` and commit it',
    ).toBe(true);
  });

  it('lists every route once, each to a known service, with the regex the local gateway uses', () => {
    const { routes } = JSON.parse(renderRoutesFile()) as {
      routes: { path: string; service: string; regex: string }[];
    };
    expect(routes.map((r) => r.path)).toEqual(HTTP_ROUTES.map((r) => r.path));
    expect(new Set(routes.map((r) => r.path)).size).toBe(routes.length);
    for (const route of routes) {
      expect(SERVICE_NAMES).toContain(route.service);
      expect(route.regex).toBe(routePattern(route.path));
      expect(route.regex).toMatch(/^\^\//);
    }
  });
});
