import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { buildConnector } from 'undici';

/** Addresses a webhook may never reach unless the operator allows private targets (SSRF). */
export function blockedAddresses(): net.BlockList {
  const list = new net.BlockList();
  for (const [net4, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16], // link-local, including the 169.254.169.254 cloud metadata service
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(net4, bits, 'ipv4');
  }
  for (const [net6, bits] of [
    ['::', 128],
    ['::1', 128],
    ['::ffff:0:0', 96], // IPv4-mapped: would smuggle any IPv4 target
    ['64:ff9b::', 96],
    ['fc00::', 7], // unique local, including fd00:ec2::254 metadata
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(net6, bits, 'ipv6');
  }
  return list;
}

const BLOCKED = blockedAddresses();

export function isBlockedAddress(ip: string): boolean {
  const family = net.isIP(ip);
  return family === 0 ? true : BLOCKED.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

export class BlockedTargetError extends Error {
  override name = 'BlockedTargetError';
}

/**
 * An undici connector that resolves the host itself, refuses private/loopback/link-local/metadata
 * addresses, then connects to the address it checked (keeping the name for SNI and certificate checks),
 * so DNS rebinding between check and connect is impossible. A `lookup` hook alone would let IP literals through.
 */
export function guardedConnector(options: {
  allowPrivate: boolean;
  ca?: string | undefined;
  timeoutMs: number;
}): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) });
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const resolve = net.isIP(host)
      ? Promise.resolve([host])
      : lookup(host, { all: true }).then((r) => r.map((a) => a.address));
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
        connect({ ...opts, hostname: address, servername: net.isIP(host) ? '' : host }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}
