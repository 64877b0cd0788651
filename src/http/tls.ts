import fs from 'node:fs';
import path from 'node:path';

/**
 * HSTS, sent on every response over TLS (API, docs, dashboard, problems): one value for the whole host, or
 * browsers would keep whichever they saw last.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * On every response, problems included: no cache keeps an answer (secrets such as a new `whsec_`, a key's data,
 * what one customer sees), and no browser reads a body as another type than it is sent as. A route that serves
 * something public and fixed (a stylesheet, an icon) replaces the Cache-Control.
 */
export const RESPONSE_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export type TlsMaterial = { key: string; cert: string; selfSigned: boolean };

/** A development certificate for localhost and 127.0.0.1, valid a year. */
export async function makeSelfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const notAfterDate = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  // Loaded here: it and its ASN.1 libraries took about 100 ms of every start, and only a first start needs it.
  // A CommonJS package loaded with import() is read through `default` (its module.exports): the bundle (dist/,
  // scripts/build.ts) gives such a module no named exports.
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** Configured files, else a self-signed certificate made once and kept in the data folder. */
export async function loadTls(options: {
  certFile?: string | undefined;
  keyFile?: string | undefined;
  dataDir: string;
}): Promise<TlsMaterial> {
  if (options.certFile && options.keyFile) {
    return {
      cert: fs.readFileSync(options.certFile, 'utf8'),
      key: fs.readFileSync(options.keyFile, 'utf8'),
      selfSigned: false,
    };
  }
  const dir = path.join(options.dataDir, 'tls');
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) {
    const made = await makeSelfSignedCertificate();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(keyPath, made.key, { mode: 0o600 });
    fs.writeFileSync(certPath, made.cert);
  }
  return { cert: fs.readFileSync(certPath, 'utf8'), key: fs.readFileSync(keyPath, 'utf8'), selfSigned: true };
}
