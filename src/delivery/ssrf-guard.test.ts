import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { createWebhookSender } from './http-sender.ts';
import {
  addressChecker,
  BLOCKED_IPV4,
  BLOCKED_IPV6,
  isBlockedAddress,
  type LookupAll,
} from './ssrf-guard.ts';

/** Public unicast: webhooks must reach these. */
const PUBLIC_ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // IPv4-mapped public address
  '::ffff:5db8:d822', // the same, hex form (93.184.216.34)
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
];

/** One or more addresses in every refused range and form; the comment names the range that refuses it. */
const REFUSED_ADDRESSES = [
  '0.0.0.0', // 0.0.0.0/8
  '0.1.2.3',
  '10.0.0.1', // 10.0.0.0/8
  '100.64.0.1', // 100.64.0.0/10
  '127.0.0.1', // 127.0.0.0/8
  '127.255.255.254',
  '169.254.169.254', // 169.254.0.0/16
  '172.16.0.1', // 172.16.0.0/12
  '172.31.255.255',
  '192.0.0.8', // 192.0.0.0/24
  '192.0.2.1', // 192.0.2.0/24
  '192.88.99.1', // 192.88.99.0/24
  '192.168.1.1', // 192.168.0.0/16
  '198.18.0.1', // 198.18.0.0/15
  '198.51.100.7', // 198.51.100.0/24
  '203.0.113.9', // 203.0.113.0/24
  '224.0.0.1', // 224.0.0.0/4
  '239.255.255.250',
  '240.0.0.1', // 240.0.0.0/4
  '255.255.255.255',
  '::', // ::/96
  '::1',
  '::127.0.0.1', // IPv4-compatible, wrapping loopback
  '::8.8.8.8', // IPv4-compatible is refused whatever it wraps
  '64:ff9b:1::a00:1', // 64:ff9b:1::/48
  '100::1', // 100::/64
  '2001::1', // 2001::/23 (Teredo)
  '2001:2::1', // 2001::/23 (benchmarking)
  '2001:db8::1', // 2001:db8::/32
  '2002:7f00:1::', // 2002::/16, 6to4 wrapping 127.0.0.1
  '2002:c0a8:101::', // 6to4 wrapping 192.168.1.1
  '2002:808:808::', // 6to4 is refused whatever it wraps
  '3fff::1', // 3fff::/20
  '5f00::1', // 5f00::/16
  'fc00::1', // fc00::/7
  'fd00:ec2::254',
  'fe80::1', // fe80::/10
  'fe80::1%eth0',
  'fec0::1', // fec0::/10
  'ff02::1', // ff00::/8
  '::ffff:127.0.0.1', // IPv4-mapped, judged by the IPv4 address it carries
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::ffff:0:0', // mapped 0.0.0.0
  '0:0:0:0:0:ffff:c0a8:101', // mapped 192.168.1.1, uncompressed
  '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
  '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
  'not-an-address',
  '',
];

describe('isBlockedAddress', () => {
  for (const ip of PUBLIC_ADDRESSES) {
    it(`allows the public address ${ip}`, () => assert.equal(isBlockedAddress(ip), false));
  }
  for (const ip of REFUSED_ADDRESSES) {
    it(`refuses ${ip || '(empty)'}`, () => assert.equal(isBlockedAddress(ip), true));
  }

  it('needs every listed range: without any one of them, an address of the refused table gets through', () => {
    const lists = { ipv4: BLOCKED_IPV4, ipv6: BLOCKED_IPV6 };
    for (const family of ['ipv4', 'ipv6'] as const) {
      for (const range of lists[family]) {
        const without = addressChecker({ ...lists, [family]: lists[family].filter((r) => r !== range) });
        const through = REFUSED_ADDRESSES.filter((ip) => !without(ip));
        assert.notDeepEqual(through, [], `${range.join('/')} is pinned by no address`);
      }
    }
  });
});

describe('the guarded connector judges the address it connects to', () => {
  let receiver: Receiver;
  let port: string;
  before(async () => {
    receiver = await startReceiver();
    port = new URL(receiver.url).port;
  });
  after(() => receiver.close());

  /** A sender under the production address policy (plain http only to keep the test on one receiver). */
  function guardedSender(names: Record<string, string[]>) {
    const lookups: string[] = [];
    const lookup: LookupAll = async (host) => {
      lookups.push(host);
      const found = names[host];
      if (!found) throw new Error(`ENOTFOUND ${host}`);
      return found;
    };
    const sender = createWebhookSender({
      timeoutMs: 2_000,
      allowHttp: true,
      allowPrivateTargets: false,
      lookup,
      // Every address that passed the guard is served by the loopback receiver.
      routeCheckedAddress: () => '127.0.0.1',
    });
    return { sender, lookups };
  }

  it('delivers to a public name and to a public IPv4 literal (resolved, checked, then routed)', async () => {
    const { sender, lookups } = guardedSender({
      'hooks.example.test': ['93.184.216.34'],
      'v6.example.test': ['2606:4700:4700::1111'],
    });
    try {
      const before = receiver.received.length;
      for (const url of [
        `http://hooks.example.test:${port}/name`,
        `http://v6.example.test:${port}/v6`,
        `http://93.184.216.34:${port}/literal`,
        `http://[::ffff:8.8.8.8]:${port}/mapped`,
      ]) {
        const result = await sender.send(url, { 'content-type': 'application/json' }, '{"ok":true}');
        assert.equal(result.ok, true, `${url}: ${result.error}`);
      }
      assert.equal(receiver.received.length, before + 4);
      assert.deepEqual(lookups, ['hooks.example.test', 'v6.example.test'], 'literals are not resolved');
    } finally {
      await sender.close();
    }
  });

  it('refuses a name that resolves to a private address, even when only one of its addresses is', async () => {
    const { sender } = guardedSender({
      'internal.example.test': ['10.0.0.1'],
      'metadata.example.test': ['fd00:ec2::254'],
      'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
      'mapped.example.test': ['::ffff:169.254.169.254'],
    });
    try {
      const before = receiver.received.length;
      for (const [host, address] of [
        ['internal.example.test', '10.0.0.1'],
        ['metadata.example.test', 'fd00:ec2::254'],
        ['mixed.example.test', '127.0.0.1'],
        ['mapped.example.test', '::ffff:169.254.169.254'],
      ] as const) {
        const result = await sender.send(`http://${host}:${port}/x`, {}, '{}');
        assert.equal(result.ok, false, host);
        assert.equal(result.error, `Target address ${address} is not allowed for webhooks`, host);
      }
      assert.equal(receiver.received.length, before, 'nothing reached the receiver');
    } finally {
      await sender.close();
    }
  });

  it('refuses private IP literals in every form the URL parser accepts', async () => {
    const { sender, lookups } = guardedSender({});
    try {
      const before = receiver.received.length;
      for (const host of [
        '127.0.0.1',
        '2130706433',
        '0x7f.1',
        '127.1',
        '0177.0.0.1',
        '[::1]',
        '[::ffff:127.0.0.1]',
        '[::127.0.0.1]',
        '[2002:7f00:1::]',
        '[64:ff9b::7f00:1]',
        '169.254.169.254',
      ]) {
        const result = await sender.send(`http://${host}:${port}/x`, {}, '{}');
        assert.equal(result.ok, false, host);
        assert.match(result.error ?? '', /is not allowed for webhooks/, host);
      }
      assert.equal(receiver.received.length, before, 'nothing reached the receiver');
      assert.deepEqual(lookups, []);
    } finally {
      await sender.close();
    }
  });
});
