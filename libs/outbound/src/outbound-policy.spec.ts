import { describe, expect, it } from 'vitest';
import { parseAllowCidrs } from './allow-cidrs.js';
import { OutboundPolicy } from './outbound-policy.js';

describe('OutboundPolicy', () => {
  const strict = new OutboundPolicy();

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'unique_local'],
    ['fc00::1', 'unique_local'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.254', 'carrier_grade_nat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    // IPv4-mapped, in both spellings, and NAT64 / 6to4 carrying an internal IPv4.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['::7f00:1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ])('refuses %s as %s', (address, category) => {
    expect(strict.checkAddress(address)).toEqual({ allowed: false, category });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(strict.checkAddress(address)).toEqual({ allowed: true });
  });

  it('allows what the allow-list names, in both address families and through IPv4-mapped IPv6', () => {
    const policy = new OutboundPolicy('127.0.0.0/8, fd00::/8 ,10.0.0.5');
    expect(policy.checkAddress('127.0.0.1').allowed).toBe(true);
    expect(policy.checkAddress('::ffff:127.0.0.1').allowed).toBe(true);
    expect(policy.checkAddress('fd12::1').allowed).toBe(true);
    expect(policy.checkAddress('10.0.0.5').allowed).toBe(true);
    expect(policy.checkAddress('10.0.0.6')).toEqual({ allowed: false, category: 'private' });
    expect(policy.checkAddress('::1')).toEqual({ allowed: false, category: 'loopback' });
    expect(policy.checkAddress('169.254.169.254')).toEqual({ allowed: false, category: 'metadata' });
  });

  it('refuses metadata host names by name, case and trailing dot aside', () => {
    expect(strict.isRefusedHostName('metadata.google.internal')).toBe(true);
    expect(strict.isRefusedHostName('METADATA.google.internal.')).toBe(true);
    expect(strict.isRefusedHostName('api.openai.com')).toBe(false);
  });

  it('names every bad allow-list entry', () => {
    expect(() => parseAllowCidrs('10.0.0.0/8, nope, 300.1.1.1/8, ::1/129')).toThrow(
      'not CIDR ranges or addresses: nope, 300.1.1.1/8, ::1/129',
    );
    expect(parseAllowCidrs('')).toEqual([]);
    expect(parseAllowCidrs(undefined)).toEqual([]);
    expect(parseAllowCidrs('::1').map((entry) => entry.text)).toEqual(['::1/128']);
  });
});
