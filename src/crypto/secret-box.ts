import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets we must be able to read back (webhook signing secrets) with AES-256-GCM under a key
 * derived from the server secret. Stored form: `v1.<iv>.<ciphertext>.<tag>` (base64url).
 */
export type SecretBox = { seal(plain: string): string; open(sealed: string): string };

export function createSecretBox(serverSecret: string): SecretBox {
  // A KeyObject: Node 24 checks a Buffer key by catching thrown errors, about 25 µs a cipher (docs/performance.md,
  // "Keys handed to node:crypto").
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', serverSecret, 'secret-box', 'v1', 32)));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, ct, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, ct, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || !ct || !tag) throw new Error('Unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
