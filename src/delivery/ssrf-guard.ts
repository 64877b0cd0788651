import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import { buildConnector } from 'undici';

type Range = readonly [network: string, prefix: number];

/**
 * IPv4 ranges a webhook may never reach unless the operator allows private targets (SSRF): everything
 * that is not public unicast in IANA's special-purpose registry. No range contains another, so each
 * one is pinned by its own test address.
 */
export const BLOCKED_IPV4: readonly Range[] = [
  ['0.0.0.0', 8], // "this network", including 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 cloud metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the 255.255.255.255 broadcast
];

/**
 * IPv6 ranges refused likewise. IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are not
 * here: they are judged by the IPv4 address they carry (see `addressChecker`).
 */
export const BLOCKED_IPV6: readonly Range[] = [
  ['::', 96], // unspecified ::, loopback ::1 and the deprecated IPv4-compatible ::a.b.c.d, whatever it wraps
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (deprecated), whatever IPv4 it wraps
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 segment identifiers
  ['fc00::', 7], // unique local, including the fd00:ec2::254 metadata service
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, a trailing dotted quad folded in). */
function groups(ip: string): number[] {
  const [address = ''] = ip.split('%');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = quad
    ? `${address.slice(0, quad.index)}${((Number(quad[1]) << 8) | Number(quad[2])).toString(16)}:${((Number(quad[3]) << 8) | Number(quad[4])).toString(16)}`
    : address;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const before = parse(head);
  const after = parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** The IPv4 address an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address carries, if it is one. */
function embeddedIpv4(ip: string): string | null {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups(ip);
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  return mapped || nat64 ? [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.') : null;
}

/**
 * Whether an address is refused under the given ranges. Two lists, each checked only with its own family:
 * `net.BlockList` also matches an IPv4 address against IPv6 rules in its IPv4-mapped form, so one mixed
 * list holding a mapped range would refuse every IPv4 address.
 */
export function addressChecker(ranges: { ipv4: readonly Range[]; ipv6: readonly Range[] }) {
  const v4 = new net.BlockList();
  for (const [network, prefix] of ranges.ipv4) v4.addSubnet(network, prefix, 'ipv4');
  const v6 = new net.BlockList();
  for (const [network, prefix] of ranges.ipv6) v6.addSubnet(network, prefix, 'ipv6');
  return (ip: string): boolean => {
    const family = net.isIP(ip);
    if (family === 4) return v4.check(ip, 'ipv4');
    if (family !== 6) return true;
    const embedded = embeddedIpv4(ip);
    return embedded ? v4.check(embedded, 'ipv4') : v6.check(ip.split('%')[0] ?? ip, 'ipv6');
  };
}

/** True for an address a webhook may not reach (and for anything that is not an IP address). */
export const isBlockedAddress = addressChecker({ ipv4: BLOCKED_IPV4, ipv6: BLOCKED_IPV6 });

export class BlockedTargetError extends Error {
  override name = 'BlockedTargetError';
}

/** Every address a host name resolves to. */
export type LookupAll = (hostname: string) => Promise<string[]>;

const systemLookup: LookupAll = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map((a) => a.address);

export type GuardedConnectorOptions = {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Extra CA to trust (tests and private PKI). */
  ca?: string | undefined;
  /** Name resolution; node:dns unless given. */
  lookup?: LookupAll | undefined;
  /**
   * Tests only, never set by production wiring: where the socket goes for an address that passed the
   * guard, so a test can deliver to a "public" address served by a loopback receiver.
   */
  routeCheckedAddress?: ((address: string) => string) | undefined;
};

/**
 * An undici connector that resolves the host itself, refuses private/loopback/link-local/metadata
 * addresses, then connects to the address it checked (keeping the name for SNI and certificate checks),
 * so DNS rebinding between check and connect is impossible. A `lookup` hook alone would let IP literals through.
 */
export function guardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) });
  const lookup = options.lookup ?? systemLookup;
  const route = options.routeCheckedAddress ?? ((address: string) => address);
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const resolve = net.isIP(host) ? Promise.resolve([host]) : lookup(host);
    resolve.then(
      (addresses) => {
        const blocked = addresses.find(isBlockedAddress);
        if (!options.allowPrivate && blocked !== undefined) {
          callback(new BlockedTargetError(`Target address ${blocked} is not allowed for webhooks`), null);
          return;
        }
        const [address] = addresses;
        if (!address) {
          callback(new Error(`No address for ${host}`), null);
          return;
        }
        connect({ ...opts, hostname: route(address), servername: net.isIP(host) ? '' : host }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}
