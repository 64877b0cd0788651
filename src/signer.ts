import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * Server-side MACs for values we hand out and must recognise later (pagination cursors, and similar).
 * Each purpose gets its own derived key so a MAC made for one use is worthless for another.
 */
export type Signer = {
  sign(purpose: string, data: string): string;
  verify(purpose: string, data: string, mac: string): boolean;
};

export function createSigner(serverSecret: string): Signer {
  // Derived once per purpose, as KeyObjects: Node 24 checks a Buffer key by catching thrown errors, about 25 µs
  // a MAC (docs/performance.md, "Keys handed to node:crypto").
  const keys = new Map<string, KeyObject>();
  const keyFor = (purpose: string) => {
    let key = keys.get(purpose);
    if (!key) {
      key = createSecretKey(createHmac('sha256', serverSecret).update(`signer:${purpose}`).digest());
      keys.set(purpose, key);
    }
    return key;
  };
  const sign = (purpose: string, data: string) =>
    createHmac('sha256', keyFor(purpose)).update(data).digest('base64url');
  return {
    sign,
    verify(purpose, data, mac) {
      const expected = Buffer.from(sign(purpose, data));
      const given = Buffer.from(mac);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
