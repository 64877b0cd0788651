/**
 * The embedded PostgreSQL (PGlite) on a thread of its own (started by `pglite-thread.ts`). It runs PostgreSQL's
 * wire protocol: bytes in, bytes out, one request at a time, so the API thread spends none of its time in the
 * WebAssembly database and parses the answers with node-postgres, as from a PostgreSQL server.
 */
import { readFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { isNewDataDir, readTemplate, saveTemplate } from './pglite-template.ts';

export type PgliteWorkerOptions = {
  /** Data folder; absent means in memory. */
  dir: string | undefined;
  /** A new folder is loaded from this migrated dump when it can be read, else from the empty cluster's. */
  schemaTemplate: string | undefined;
  sharedBuffers: string;
  /** The API thread's compile cache (src/compile-cache.ts), if it has one: a thread loads its modules anew. */
  compileCacheDir: string | undefined;
  /**
   * PGlite's WebAssembly: compiled once per process (a `WebAssembly.Module`, pglite-thread.ts), or the file to compile
   * it from and send back (reply id -1) when this is the process's first thread.
   */
  wasm: object | string;
};

export type PgliteRequest =
  | { id: number; op: 'exec'; bytes: Uint8Array }
  | { id: number; op: 'dump'; file: string }
  | { id: number; op: 'close' };

export type PgliteReply =
  | { id: number; ok: true; bytes?: Uint8Array; saved?: boolean; wasm?: object }
  | { id: number; ok: false; message: string };

// Node has WebAssembly; TypeScript declares it only in the DOM libraries, which this project does not load.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<object> };

async function open(options: PgliteWorkerOptions, share: (wasm: object) => void): Promise<PGlite> {
  const { dir, schemaTemplate, sharedBuffers, compileCacheDir } = options;
  if (compileCacheDir) module.enableCompileCache(compileCacheDir);
  const [{ PGlite }, wasmModule] = await Promise.all([
    import('@electric-sql/pglite'),
    typeof options.wasm === 'string' ? WebAssembly.compile(readFileSync(options.wasm)) : options.wasm,
  ]);
  if (typeof options.wasm === 'string') share(wasmModule);
  const settings = {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
    pgliteWasmModule: wasmModule,
  };
  const folder = dir ? path.resolve(dir) : undefined;
  const fresh = isNewDataDir(folder);
  const migrated = fresh && schemaTemplate ? readTemplate(schemaTemplate) : undefined;
  const template = fresh ? (migrated ?? readTemplate()) : undefined;
  const loaded = { ...settings, ...(template ? { loadDataDir: template } : {}) };
  const pglite = folder ? new PGlite(folder, loaded) : new PGlite(loaded);
  await pglite.waitReady;
  if (compileCacheDir) module.flushCompileCache();
  if (fresh && !template) await saveTemplate(pglite);
  return pglite;
}

/**
 * The answer as a buffer of its own, to be handed over (transferred) to the API thread: PGlite answers the startup
 * message with a view of its internal buffer, which a transfer would take away from it.
 */
const ownBuffer = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();

/**
 * Runs protocol bytes and returns PostgreSQL's answer. Not `execProtocolRaw`: besides returning the bytes, it parses
 * every answer into message objects and keeps them in a list that only PGlite's own `execProtocol` empties (PGlite
 * 0.5.16). Under this raw use the thread's heap grew about 1.5 KB a query without end (13 → 44 MB over 20,000
 * queries, read after a full GC), and the parsing, which node-postgres does again on the API thread, was about half
 * of this thread's time (GET /calls on PGlite, quick runs: p50 3.9 → 1.6 ms). The streaming variant hands over the
 * bytes only.
 */
async function exec(pglite: PGlite, bytes: Uint8Array): Promise<Uint8Array> {
  // The startup message is answered by the call's return value, not through the stream.
  if (bytes[0] === 0) return ownBuffer(await pglite.execProtocolRaw(bytes));
  const chunks: Uint8Array[] = [];
  // Each chunk is a view of PGlite's WebAssembly memory, valid only during the callback.
  await pglite.execProtocolRawStream(bytes, { onRawData: (chunk) => chunks.push(chunk.slice()) });
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  // A buffer of its own, to transfer whole (Buffer.concat may hand out a slice of Node's shared pool).
  const answer = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    answer.set(chunk, at);
    at += chunk.byteLength;
  }
  return answer;
}

async function answer(pglite: PGlite, request: PgliteRequest): Promise<PgliteReply> {
  switch (request.op) {
    case 'exec':
      return { id: request.id, ok: true, bytes: await exec(pglite, request.bytes) };
    case 'dump':
      return { id: request.id, ok: true, saved: await saveTemplate(pglite, request.file) };
    case 'close':
      await pglite.close();
      return { id: request.id, ok: true };
  }
}

const port = parentPort;
if (port) {
  const opened = open(workerData as PgliteWorkerOptions, (wasm) =>
    port.postMessage({ id: -1, ok: true, wasm } satisfies PgliteReply),
  );
  opened.then(
    () => port.postMessage({ id: 0, ok: true }),
    (error: unknown) => port.postMessage({ id: 0, ok: false, message: describe(error) }),
  );
  // One request at a time, in the order sent: PostgreSQL's protocol is a conversation with one session.
  let queue = opened;
  port.on('message', (request: PgliteRequest) => {
    queue = queue.then(async (pglite) => {
      const reply = await answer(pglite, request).catch(
        (error: unknown): PgliteReply => ({ id: request.id, ok: false, message: describe(error) }),
      );
      port.postMessage(reply, reply.ok && reply.bytes ? [reply.bytes.buffer as ArrayBuffer] : []);
      if (request.op === 'close') port.close();
      return pglite;
    });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
