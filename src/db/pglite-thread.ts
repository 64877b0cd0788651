import { once } from 'node:events';
import module from 'node:module';
import { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { PGLITE_WASM_FILE } from './pglite-template.ts';
import type { PgliteReply, PgliteRequest, PgliteWorkerOptions } from './pglite-worker.ts';

type Pending = { resolve: (reply: PgliteReply & { ok: true }) => void; reject: (error: Error) => void };
type Op = { op: 'exec'; bytes: Uint8Array } | { op: 'dump'; file: string } | { op: 'close' };

export type PgliteThread = {
  /**
   * Runs wire-protocol bytes in the embedded session; resolves to what the server wrote back. `bytes` is handed over
   * (transferred) to the thread: a buffer of its own, not used again.
   */
  exec(bytes: Uint8Array): Promise<Uint8Array>;
  /** Saves the cluster as a template file (pglite-template.ts); false when it could not be written. */
  dump(file: string): Promise<boolean>;
  /** A socket for node-postgres (its `stream` option) onto the embedded session. */
  socket(): Duplex;
  /**
   * The thread's live JavaScript heap in bytes, after a full garbage collection (taking a heap snapshot forces
   * one): for diagnosis and the test that the thread keeps nothing per query. It pauses the thread; not for metrics.
   */
  liveHeapBytes(): Promise<number>;
  close(): Promise<void>;
};

/** The thread's entry: beside this module, from source or from the bundle (`dist/`, scripts/build.ts). */
const WORKER_FILE = new URL(
  import.meta.url.endsWith('.ts') ? './pglite-worker.ts' : './pglite-worker.js',
  import.meta.url,
);

/**
 * Starts PGlite on a worker thread (`pglite-worker.ts`) and resolves once it is open. Why a thread: in the API
 * process's own thread, every query's WebAssembly and protocol work ran between TLS and JSON on one core; on its
 * own thread the second core runs it (docs/performance.md, scenario 6).
 */
export async function startPgliteThread(
  options: Omit<PgliteWorkerOptions, 'compileCacheDir' | 'wasm'>,
): Promise<PgliteThread> {
  const shared = compiled ? await compiled : undefined;
  const worker = new Worker(WORKER_FILE, {
    workerData: {
      ...options,
      compileCacheDir: module.getCompileCacheDir(),
      wasm: shared ?? PGLITE_WASM_FILE,
    } satisfies PgliteWorkerOptions,
    // The thread's own JavaScript is small (protocol buffers in and out): a small young generation keeps its
    // heap small (peak RSS under scenario 1, one quick run each: 635 MB with the default, 579 MB with this).
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`Connection terminated: the PGlite thread exited (${code})`)));

  const opened = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  });
  if (!shared) compiled ??= compiledBy(pending);
  worker.on('message', (reply: PgliteReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve(reply);
    else p.reject(new Error(reply.message));
  });

  function send(op: Op): Promise<PgliteReply & { ok: true }> {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    const request = { id, ...op } as PgliteRequest;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(request, op.op === 'exec' ? [op.bytes.buffer as ArrayBuffer] : []);
    });
  }

  await opened.catch(async (error: unknown) => {
    // A thread left waiting for requests would keep the process from ever exiting.
    await worker.terminate();
    throw error;
  });
  let sockets = 0;
  const thread: PgliteThread = {
    exec: async (bytes) => (await send({ op: 'exec', bytes })).bytes ?? new Uint8Array(0),
    dump: async (file) => (await send({ op: 'dump', file })).saved === true,
    socket: () => new SessionSocket(thread, sockets++ > 0),
    async liveHeapBytes() {
      const snapshot = await worker.getHeapSnapshot();
      for await (const _ of snapshot);
      return (await worker.getHeapStatistics()).used_heap_size;
    },
    async close() {
      if (failure) return;
      const exited = once(worker, 'exit');
      await send({ op: 'close' });
      // The thread ends on its own once PGlite is closed; `terminate` is only the fallback.
      const stop = setTimeout(() => void worker.terminate(), 5_000);
      await exited;
      clearTimeout(stop);
    },
  };
  return thread;
}

type WasmModule = Exclude<PgliteWorkerOptions['wasm'], string>;

let compiled: Promise<WasmModule | undefined> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process and handed to every thread, which then shares the compiled code.
 * Each thread compiling its own copy made every open slower (about 100 ms of compiling, then seconds of V8
 * optimising it in the background), and a process that opens and closes many (the tests) churns V8's code space,
 * where Node has an open crash with PGlite (nodejs/node#64500, "Check failed: jit_page_->allocations_.erase");
 * we met it once in a test run before sharing the module.
 *
 * The first thread compiles it and sends it back (reply id -1), so that at start the file is read and compiled on
 * the database's own core while this one loads the server's modules. Compiled here, the module reached the thread
 * only once those modules had loaded (the file's read and the compile's promise settle on this thread's event
 * loop): start → listening on the bench's PGlite folder, five alternated runs, median 2.96 s then, 2.54 s now
 * (docs/performance.md). A thread that fails before sending it leaves the compiling to the next one.
 */
function compiledBy(pending: Map<number, Pending>): Promise<WasmModule | undefined> {
  return new Promise((resolve) => {
    pending.set(-1, {
      resolve: (reply) => resolve(reply.wasm),
      reject: () => {
        compiled = undefined;
        resolve(undefined);
      },
    });
  });
}

/**
 * What node-postgres writes, sent to the thread once per turn of the event loop: pg writes a query's Parse,
 * Bind, Describe, Execute and Sync one by one, and they cost one message to the thread together. PGlite answers
 * the startup message itself; the one session outlives each socket, so a socket after the first starts by
 * dropping what an earlier one left: an open transaction and its named statements (pg would prepare them again).
 */
class SessionSocket extends Duplex {
  private queued: Buffer[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly thread: PgliteThread;
  private readonly reused: boolean;

  constructor(thread: PgliteThread, reused: boolean) {
    super();
    this.thread = thread;
    this.reused = reused;
  }

  connect(): this {
    const reset = this.reused ? this.thread.exec(simpleQuery('ROLLBACK; DEALLOCATE ALL')) : Promise.resolve();
    reset.then(
      () => this.emit('connect'),
      (error: Error) => this.destroy(error),
    );
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.queued.push(chunk) === 1) queueMicrotask(() => this.flush());
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.flushing.then(() => {
      this.push(null);
      done();
    });
  }

  private flush(): void {
    const bytes = Buffer.concat(this.queued);
    this.queued = [];
    // A copy of its own: the buffer is handed over (transferred) to the thread.
    const own = new Uint8Array(bytes);
    this.flushing = this.flushing
      .then(() => this.thread.exec(own))
      .then(
        (reply) => {
          if (reply.length > 0) this.push(Buffer.from(reply.buffer, reply.byteOffset, reply.length));
        },
        (error: Error) => {
          this.destroy(error);
        },
      );
  }
}

/** A simple-protocol Query message. */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'latin1');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return new Uint8Array(message);
}
