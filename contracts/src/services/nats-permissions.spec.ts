import { describe, expect, it } from 'vitest';
import { MESH_PROCESSES } from './mesh-processes.js';
import {
  meshInboxPrefix,
  meshNatsUsers,
  operatorNatsPermissions,
  processNatsPermissions,
} from './nats-permissions.js';
import { SERVICE_NAMES, SERVICES } from './service-names.js';

const PREFIX = 'fm';

describe('NATS permissions derived from the contracts', () => {
  it('lets a process subscribe to its own requests, its events and its own inbox, never to everything', () => {
    for (const p of MESH_PROCESSES) {
      const { subscribe } = processNatsPermissions(p, PREFIX);
      const served = p.role === 'worker' ? 'worker.>' : '>';
      expect(subscribe.allow).toContain(`fm.${SERVICES[p.service].subjectRoot}.${served}`);
      expect(subscribe.allow).toContain(`${meshInboxPrefix(PREFIX, p.name)}.>`);
      for (const subject of subscribe.allow) {
        expect(subject).not.toMatch(/^(>|\*|fm\.>|_INBOX\.>|_INBOX\.fm\.>|\$JS\.)/);
        const other = SERVICE_NAMES.filter((s) => s !== p.service).map((s) => SERVICES[s].subjectRoot);
        for (const root of other)
          expect(subject.startsWith(`fm.${root}.`), `${p.name}: ${subject}`).toBe(false);
      }
    }
  });

  it('lets only the registry hear the registry’s requests (tokens to authenticate, secrets to interpolate)', () => {
    const hearers = MESH_PROCESSES.filter((p) =>
      processNatsPermissions(p, PREFIX).subscribe.allow.some((s) => s.startsWith('fm.registry.')),
    );
    expect(hearers.map((p) => p.name)).toEqual(['resource-registry']);
  });

  it('gives every user its own inbox', () => {
    const inboxes = meshNatsUsers(PREFIX).flatMap(({ permissions }) =>
      permissions.subscribe.allow.filter((s) => s.startsWith('_INBOX.')),
    );
    expect(inboxes).toHaveLength(MESH_PROCESSES.length + 1);
    expect(new Set(inboxes).size).toBe(inboxes.length);
  });

  it('never lets a service delete or purge a stream, nor publish to an inbox', () => {
    for (const { permissions } of meshNatsUsers(PREFIX)) {
      for (const subject of permissions.publish.allow) {
        expect(subject).not.toMatch(/DELETE\.[A-Z_]+$|PURGE|^_INBOX|^>$|^fm\.>$/);
        expect(subject.startsWith('fm.') || subject.startsWith('$JS.')).toBe(true);
      }
    }
  });

  it("lets the CLI only ping, initialise the first admin and ask for a map rebuild (an admin's token decides)", () => {
    expect(operatorNatsPermissions(PREFIX).publish.allow).toEqual(
      expect.arrayContaining([
        'fm.registry.ping',
        'fm.orchestrator.worker.ping',
        'fm.registry.admin.init',
        'fm.locker.depmap.rebuild',
      ]),
    );
    expect(
      operatorNatsPermissions(PREFIX).publish.allow.filter(
        (s) => !/\.ping$|admin\.init$|^fm\.locker\.depmap\.rebuild$|^\$JS\.API\.INFO$/.test(s),
      ),
    ).toEqual([]);
  });
});
