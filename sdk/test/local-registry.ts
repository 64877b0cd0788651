import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';

type Manifest = { name: string; version: string; dist: { tarball: string } } & Record<string, unknown>;
export type Packument = {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Manifest>;
};

export type LocalRegistry = {
  /** With a trailing slash, as npm writes registry URLs. */
  url: string;
  /** What `npm publish` sent, by package name: the manifests customers install from. */
  packages: Map<string, Packument>;
  close(): Promise<void>;
};

type Publication = Packument & { _attachments: Record<string, { data: string }> };

/**
 * A registry of the operator's own, reduced to what `npm publish` and `npm install` use: `PUT /<name>` with the
 * manifest and the tarball (base64), given the token; `GET /<name>` (the packument) and `GET` of a tarball.
 */
export async function startLocalRegistry(token: string): Promise<LocalRegistry> {
  const packages = new Map<string, Packument>();
  const tarballs = new Map<string, Buffer>();
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // npm escapes a scoped name's slash: /@scope%2fname.
    const path = decodeURIComponent(new URL(req.url ?? '/', registry.url).pathname.slice(1));
    if (req.method === 'PUT') {
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'unauthorized' });
      const { _attachments, ...published } = JSON.parse(await text(req)) as Publication;
      const known = packages.get(published.name) ?? { ...published, versions: {} };
      for (const [version, manifest] of Object.entries(published.versions)) {
        if (known.versions[version]) return send(403, { error: `${published.name}@${version} exists` });
        const file = `${published.name}-${version}.tgz`;
        tarballs.set(file, Buffer.from(_attachments[file]?.data ?? '', 'base64'));
        const tarball = `${registry.url}-/tarballs/${encodeURIComponent(file)}`;
        known.versions[version] = { ...manifest, dist: { ...manifest.dist, tarball } };
      }
      packages.set(published.name, {
        ...known,
        'dist-tags': { ...known['dist-tags'], ...published['dist-tags'] },
      });
      return send(201, { ok: true });
    }
    const tarball = path.startsWith('-/tarballs/')
      ? tarballs.get(path.slice('-/tarballs/'.length))
      : undefined;
    if (req.method === 'GET' && tarball) {
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    }
    const packument = packages.get(path);
    return req.method === 'GET' && packument ? send(200, packument) : send(404, { error: 'not found' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const registry: LocalRegistry = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    packages,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return registry;
}
