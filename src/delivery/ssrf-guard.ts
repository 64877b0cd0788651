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
 * IPv6 ranges refused likewise, whatever IPv4 address they may carry: IPv4-compatible (inside ::/96), local-use
 * NAT64, Teredo (2001::/32, inside 2001::/23) and 6to4. IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96) and well-known NAT64 (64:ff9b::/96) addresses are not here: they are judged by the IPv4 address
 * they carry (see `addressChecker`).
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

/**
 * The first 96 bits (as hex groups) of the forms judged by the IPv4 address in their last 32: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, SIIT) and well-known NAT64 (64:ff9b::a.b.c.d). A translator
 * on the way delivers to that IPv4 address.
 */
const IPV4_CARRIERS = new Set(['0:0:0:0:0:ffff', '0:0:0:0:ffff:0', '64:ff9b:0:0:0:0']);

/** The IPv4 address an IPv6 address of one of those forms carries; null for any other. */
function embeddedIpv4(ip: string): string | null {
  const all = groups(ip);
  if (
    !IPV4_CARRIERS.has(
      all
        .slice(0, 6)
        .map((g) => g.toString(16))
        .join(':'),
    )
  )
    return null;
  const [high = 0, low = 0] = all.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
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

/**
 * The `error` of an attempt whose target resolved to a refused address. It does not say which address: the
 * delivery log is the customer's, and naming the address would let any customer map the operator's internal DNS.
 */
export const BLOCKED_TARGET_ERROR =
  "the target's host resolved to a private or reserved address, which is not allowed for webhooks";

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
  /** Told the host and the refused address it resolved to: for the operator's log, never the customer's. */
  onRefused?: ((refused: { host: string; address: string }) => void) | undefined;
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
          options.onRefused?.({ host, address: blocked });
          callback(new BlockedTargetError(BLOCKED_TARGET_ERROR), null);
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
