import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../logger.ts';
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
  '::ffff:0:8.8.8.8', // IPv4-translated (SIIT) public address
  '::ffff:0:808:808', // the same, hex form
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
  '::ffff:0:127.0.0.1', // IPv4-translated (SIIT), judged by the IPv4 address it carries
  '::ffff:0:7f00:1',
  '::ffff:0:a9fe:a9fe', // translated 169.254.169.254
  '0:0:0:0:ffff:0:a00:1', // translated 10.0.0.1, uncompressed
  'not-an-address',
  '',
];

/**
 * Every refused range with its first and last address and the addresses just outside it, written out by hand:
 * computed from the list under test, they would check the list against itself. An outside neighbour is null where
 * it is not a public address (another refused range, space outside global unicast 2000::/3, or no address at all).
 */
const RANGE_ENDS: [
  range: string,
  first: string,
  last: string,
  before: string | null,
  after: string | null,
][] = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', null, '1.0.0.0'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', '9.255.255.255', '11.0.0.0'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', '100.63.255.255', '100.128.0.0'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', '126.255.255.255', '128.0.0.0'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', '169.253.255.255', '169.255.0.0'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', '172.15.255.255', '172.32.0.0'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', '191.255.255.255', '192.0.1.0'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', '192.0.1.255', '192.0.3.0'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', '192.88.98.255', '192.88.100.0'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', '192.167.255.255', '192.169.0.0'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', '198.17.255.255', '198.20.0.0'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', '198.51.99.255', '198.51.101.0'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', '203.0.112.255', '203.0.114.0'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255', '223.255.255.255', null],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.255', null, null],
  ['::/96', '::', '::ffff:ffff', null, null],
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', null, null],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff', null, null],
  [
    '2001::/23',
    '2001::',
    '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:200::',
  ],
  [
    '2001:db8::/32',
    '2001:db8::',
    '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db9::',
  ],
  [
    '2002::/16',
    '2002::',
    '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2003::',
  ],
  [
    '3fff::/20',
    '3fff::',
    '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff',
    '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '3fff:1000::',
  ],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
];

const IPV4_ENDS = RANGE_ENDS.filter(([range]) => range.includes('.'));
const outside = (rows: typeof RANGE_ENDS) =>
  rows.flatMap(([, , , before, after]) => [before, after]).filter((ip) => ip !== null);

/** An IPv4 address as two hex groups: 127.0.0.1 → 7f00:1. */
const hexGroups = (v4: string, xor = 0): string => {
  const n = (v4.split('.').reduce((a, b) => a * 256 + Number(b), 0) ^ xor) >>> 0;
  return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
};

/** The IPv6 forms judged by the IPv4 address they carry. */
const CARRIERS: [form: string, wrap: (v4: string) => string][] = [
  ['IPv4-mapped', (v4) => `::ffff:${v4}`],
  ['IPv4-mapped, hex', (v4) => `::ffff:${hexGroups(v4)}`],
  ['IPv4-translated', (v4) => `::ffff:0:${v4}`],
  ['IPv4-translated, hex', (v4) => `::ffff:0:${hexGroups(v4)}`],
  ['NAT64', (v4) => `64:ff9b::${v4}`],
];

/** The IPv6 forms refused whatever IPv4 address they carry. */
const REFUSED_WRAPPERS: [form: string, wrap: (v4: string) => string][] = [
  ['IPv4-compatible', (v4) => `::${v4}`],
  ['6to4', (v4) => `2002:${hexGroups(v4)}::1`],
  ['Teredo', (v4) => `2001:0:4136:e378:8000:63bf:${hexGroups(v4, 0xffffffff)}`],
  ['local-use NAT64', (v4) => `64:ff9b:1::${v4}`],
];

describe('isBlockedAddress', () => {
  for (const ip of PUBLIC_ADDRESSES) {
    it(`allows the public address ${ip}`, () => assert.equal(isBlockedAddress(ip), false));
  }
  for (const ip of REFUSED_ADDRESSES) {
    it(`refuses ${ip || '(empty)'}`, () => assert.equal(isBlockedAddress(ip), true));
  }

  for (const [range, first, last, before, after] of RANGE_ENDS) {
    it(`refuses ${range} from its first address ${first} to its last ${last}`, () => {
      assert.equal(isBlockedAddress(first), true, first);
      assert.equal(isBlockedAddress(last), true, last);
    });
    const neighbours = [before, after].filter((ip) => ip !== null);
    if (neighbours.length === 0) continue;
    it(`allows the public addresses just outside ${range}: ${neighbours.join(', ')}`, () => {
      for (const ip of neighbours) assert.equal(isBlockedAddress(ip), false, ip);
    });
  }

  it('has range ends written out for every listed range, and for no other', () => {
    const listed = [...BLOCKED_IPV4, ...BLOCKED_IPV6].map(([network, prefix]) => `${network}/${prefix}`);
    assert.deepEqual(
      RANGE_ENDS.map(([range]) => range),
      listed,
    );
  });

  for (const [form, wrap] of CARRIERS) {
    it(`judges the ${form} form by the IPv4 address it carries, at every range end`, () => {
      for (const [, first, last] of IPV4_ENDS) {
        for (const ip of [wrap(first), wrap(last)]) assert.equal(isBlockedAddress(ip), true, ip);
      }
      for (const v4 of [...outside(IPV4_ENDS), '8.8.8.8', '93.184.216.34']) {
        assert.equal(isBlockedAddress(wrap(v4)), false, wrap(v4));
      }
    });
  }

  for (const [form, wrap] of REFUSED_WRAPPERS) {
    it(`refuses the ${form} form whatever IPv4 address it carries, public ones too`, () => {
      for (const v4 of ['127.0.0.1', '10.0.0.1', '8.8.8.8', '93.184.216.34', ...outside(IPV4_ENDS)]) {
        assert.equal(isBlockedAddress(wrap(v4)), true, wrap(v4));
      }
    });
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
    const logs: { msg: string; host?: string; address?: string }[] = [];
    const sender = createWebhookSender({
      timeoutMs: 2_000,
      allowHttp: true,
      allowPrivateTargets: false,
      lookup,
      logger: createLogger('info', { write: (line: string) => logs.push(JSON.parse(line)) }),
      // Every address that passed the guard is served by the loopback receiver.
      routeCheckedAddress: () => '127.0.0.1',
    });
    return { sender, lookups, logs };
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
        `http://[::ffff:0:8.8.8.8]:${port}/translated`,
      ]) {
        const result = await sender.send(url, { 'content-type': 'application/json' }, '{"ok":true}');
        assert.equal(result.ok, true, `${url}: ${result.error}`);
      }
      assert.equal(receiver.received.length, before + 5);
      assert.deepEqual(lookups, ['hooks.example.test', 'v6.example.test'], 'literals are not resolved');
    } finally {
      await sender.close();
    }
  });

  it('refuses a name that resolves to a private address, even when only one of its addresses is', async () => {
    const refused = [
      ['internal.example.test', '10.0.0.1'],
      ['metadata.example.test', 'fd00:ec2::254'],
      ['mixed.example.test', '127.0.0.1'],
      ['mapped.example.test', '::ffff:169.254.169.254'],
      ['translated.example.test', '::ffff:0:a9fe:a9fe'],
    ] as const;
    const names = Object.fromEntries(refused.map(([host, address]) => [host, [address]]));
    const { sender, logs } = guardedSender({
      ...names,
      'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
    });
    try {
      const before = receiver.received.length;
      for (const [host] of refused) {
        const result = await sender.send(`http://${host}:${port}/x`, {}, '{}');
        assert.equal(result.ok, false, host);
        // The customer's delivery log says what kind of address, never which one.
        assert.equal(
          result.error,
          "the target's host resolved to a private or reserved address, which is not allowed for webhooks",
          host,
        );
      }
      assert.equal(receiver.received.length, before, 'nothing reached the receiver');
      // The operator's log names the host and the address that refused it.
      assert.deepEqual(
        logs.map(({ msg, host, address }) => [msg, host, address]),
        refused.map(([host, address]) => [
          'webhook target refused: its host resolved to a private or reserved address',
          host,
          address,
        ]),
      );
    } finally {
      await sender.close();
    }
  });

  it("keeps the detail of a public target's ordinary failure, and logs nothing for it", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { sender, logs } = guardedSender({ 'hooks.example.test': ['93.184.216.34'] });
    receiver.reply = () => ({ status: 503, body: 'down for maintenance' });
    try {
      const refusedConnection = await sender.send(`http://hooks.example.test:${closedPort}/x`, {}, '{}');
      assert.match(refusedConnection.error ?? '', /^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
      const answered = await sender.send(`http://hooks.example.test:${port}/x`, {}, '{}');
      assert.equal(answered.error, 'HTTP 503');
      assert.equal(answered.responseExcerpt, 'down for maintenance');
      const unknown = await sender.send(`http://nowhere.example.test:${port}/x`, {}, '{}');
      assert.match(unknown.error ?? '', /ENOTFOUND nowhere\.example\.test/);
      assert.deepEqual(logs, []);
    } finally {
      receiver.reply = () => ({ status: 200 });
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
        '[::ffff:0:127.0.0.1]',
        '[::ffff:0:a9fe:a9fe]',
        '169.254.169.254',
      ]) {
        const result = await sender.send(`http://${host}:${port}/x`, {}, '{}');
        assert.equal(result.ok, false, host);
        assert.match(
          result.error ?? '',
          /private or reserved address, which is not allowed for webhooks$/,
          host,
        );
      }
      assert.equal(receiver.received.length, before, 'nothing reached the receiver');
      assert.deepEqual(lookups, []);
    } finally {
      await sender.close();
    }
  });
});
