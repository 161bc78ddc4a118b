import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as contracts from '../index.js';
import { ITEM_KINDS } from '../registry/events.contract.js';
import type { RequestContract, RequestTransport } from '../messaging/contract.js';
import { SERVICE_NAMES, SERVICES, type ServiceName } from './service-names.js';
import { SERVICE_TRAFFIC } from './service-traffic.js';

/**
 * The table the services' NATS permissions come from, checked against what their sources do: a
 * call, listener or stream read the table does not grant fails here (and would fail in a
 * deployment with permissions), and so does a grant nothing in the sources uses.
 */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sourcesOf(service: ServiceName): string {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.(spec|fixture)\.ts$|\.d\.ts$/.test(entry.name))
        files.push(path);
    }
  };
  walk(join(REPO_ROOT, 'services', service, 'src'));
  return files.map((file) => readFileSync(file, 'utf8')).join('\n');
}

/** The service that answers a subject, by its first token. */
function serviceAnswering(subject: string): ServiceName | undefined {
  const root = subject.split('.')[0];
  return SERVICE_NAMES.find((service) => SERVICES[service].subjectRoot === root);
}

/** Which service a `create<X>Client` factory of the contracts talks to, found by calling it. */
function serviceOfClientFactory(name: string): ServiceName | undefined {
  const factory = (contracts as Record<string, unknown>)[name];
  if (typeof factory !== 'function') return undefined;
  let subject: string | undefined;
  const recorder: RequestTransport = {
    request: (contract: RequestContract) => {
      subject = contract.subject;
      return Promise.resolve(undefined as never);
    },
  };
  const client = (factory as (transport: RequestTransport) => Record<string, (payload: unknown) => unknown>)(
    recorder,
  );
  const first = Object.values(client)[0];
  void first?.({});
  return subject === undefined ? undefined : serviceAnswering(subject);
}

function callsIn(service: ServiceName, source: string): Set<ServiceName> {
  const called = new Set<ServiceName>();
  for (const [, factory] of source.matchAll(/\b(create\w+Client)\(/g)) {
    const target = serviceOfClientFactory(factory);
    if (target) called.add(target);
  }
  for (const [, group, name] of source.matchAll(/\.request\(\s*(\w+)\.(\w+)/g)) {
    const contract = (
      (contracts as Record<string, unknown>)[group] as Record<string, RequestContract> | undefined
    )?.[name];
    const target = contract && serviceAnswering(contract.subject);
    if (target) called.add(target);
  }
  if (/\bgatewayChat\(/.test(source)) called.add('llm-gateway');
  called.delete(service);
  return called;
}

function eventDomainsIn(source: string): Set<string> {
  const domains = new Set<string>();
  if (/\bjobEvents\b/.test(source)) domains.add('job');
  if (/\bIDENTITY_EVENTS/.test(source)) domains.add('identity');
  for (const [, kind] of source.matchAll(/\bITEM_EVENTS\.(\w+)/g)) domains.add(kind);
  if (/\bITEM_EVENTS\[/.test(source)) for (const kind of ITEM_KINDS) domains.add(kind);
  for (const [, domain] of source.matchAll(/['`]evt\.(\w+)\./g)) domains.add(domain);
  return domains;
}

const sorted = <T>(values: Iterable<T>) => [...values].sort();

describe.each(SERVICE_NAMES)('SERVICE_TRAFFIC of %s matches its sources', (service) => {
  const source = sourcesOf(service);
  const traffic = SERVICE_TRAFFIC[service];

  it('calls exactly the services whose clients it creates', () => {
    expect(sorted(traffic.calls)).toEqual(sorted(callsIn(service, source)));
  });

  it('emits and hears exactly the event domains it names', () => {
    expect(sorted(new Set([...traffic.emits, ...traffic.hears]))).toEqual(sorted(eventDomainsIn(source)));
    if (/@HandleEvent\(|listenToEvent\(/.test(source)) expect(traffic.hears.length).toBeGreaterThan(0);
    if (/writeToOutbox\(|publishEvent\(/.test(source) && traffic.emits.length === 0) {
      // An outbox of work only (the orchestrator's jobs) is not an event.
      expect(/workSubject\(/.test(source)).toBe(true);
    }
  });

  it('enqueues and takes work only as it says', () => {
    expect(traffic.consumesWork).toBe(/@HandleWork\(/.test(source));
    expect(traffic.enqueuesWork).toBe(/\bworkSubject\(|\benqueueWork\(/.test(source));
  });

  it('reads the streams it names', () => {
    const named = new Set(
      [...source.matchAll(/\bSTREAMS\.(\w+)/g)]
        .map(([, key]) => key)
        .filter((key) => key !== 'events' && key !== 'work'),
    );
    expect(sorted(traffic.reads)).toEqual(sorted(named));
  });

  it('uses exactly the core subjects it names', () => {
    const expected = { publishes: new Set<string>(), subscribes: new Set<string>() };
    // Who publishes and who subscribes a contract function's subject, read from how it is used.
    const uses: Array<[RegExp, string, 'publishes' | 'subscribes']> = [
      [/\btokenStreamSubject\(/, 'stream.*', 'publishes'],
      [/\bchatCancelSignalSubject\(/, 'stream.*.cancel', 'publishes'],
      [/\bchatCancelSignalSubject\(/, 'stream.*.cancel', 'subscribes'],
      [/\bimageCancelSignalSubject\(/, 'gateway.image.cancel_signal.*', 'publishes'],
      [/\bstepStreamSubject\(/, 'runstream.*.*', 'publishes'],
    ];
    for (const [pattern, subject, direction] of uses)
      if (pattern.test(source)) expected[direction].add(subject);
    // gatewayChat (libs/gateway-chat) hears the chat's token stream for its caller.
    if (/\bgatewayChat\(/.test(source)) expected.subscribes.add('stream.*');
    expect(sorted(traffic.publishes)).toEqual(sorted(expected.publishes));
    expect(sorted(traffic.subscribes)).toEqual(sorted(expected.subscribes));
  });
});
