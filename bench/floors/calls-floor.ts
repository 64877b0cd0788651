/**
 * Floor of scenario 1: a bare node:https server that runs the same SQL on the same kind of pool as
 * GET /calls (callPageQuery through listCallRows, limit + 1 rows, same filters), maps rows with the
 * same rowToCall and signs the same next_cursor: no authentication (the bearer key is looked up in a
 * map loaded at start, no hashing, no database), no validation, no rate limits, no hooks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { listCallRows } from '../../src/calls/calls.read.repository.ts';
import { rowToCall } from '../../src/calls/calls.views.ts';
import type { SeededKey } from '../../src/cli/seed-dataset.ts';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { CallDirection } from '../../src/db/tables/calls.table.ts';
import { createCursorCodec, positionOfRow } from '../../src/pagination/cursor.ts';
import { createSigner } from '../../src/signer.ts';
import { sendJson, serveFloor } from './floor-server.ts';

const env = process.env;
const dataDir = path.resolve(env.DATA_DIR ?? './data');
const unlock = env.DATABASE_URL ? () => {} : lockDataDir(dataDir);
const database = await openDatabase({
  url: env.DATABASE_URL,
  pgliteDir: path.join(dataDir, 'pglite'),
  poolSize: Number(env.DATABASE_POOL_SIZE ?? 10),
});
const cursors = createCursorCodec(createSigner(env.SERVER_SECRET ?? ''), 'calls-cursor');
const customerOf = new Map<string, string>();
for (const file of (env.BENCH_KEYS_FILES ?? '').split(',').filter(Boolean)) {
  for (const k of JSON.parse(fs.readFileSync(file, 'utf8')) as SeededKey[])
    customerOf.set(k.secret, k.customer_id);
}

async function listCalls(customerId: string, q: URLSearchParams): Promise<string> {
  const limit = Number(q.get('limit') ?? 25);
  const direction = (q.get('direction') ?? undefined) as CallDirection | undefined;
  const filter = {
    customerId,
    direction,
    assistantId: q.get('assistant_id') ?? undefined,
    fromIso: q.get('from') ?? undefined,
    toIso: q.get('to') ?? undefined,
  };
  const rows = await listCallRows(database.db, filter, null, limit + 1);
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  const scope = [
    customerId,
    filter.direction ?? null,
    filter.assistantId ?? null,
    filter.fromIso ?? null,
    filter.toIso ?? null,
  ];
  return JSON.stringify({
    data: data.map(rowToCall),
    next_cursor: rows.length > limit && last ? cursors.encode(positionOfRow(last), scope) : null,
  });
}

serveFloor(
  (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const customerId = customerOf.get((req.headers.authorization ?? '').slice('Bearer '.length));
    if (!customerId) return sendJson(res, 404, '{"error":"unknown key"}');
    listCalls(customerId, new URLSearchParams(q < 0 ? '' : url.slice(q + 1))).then(
      (body) => sendJson(res, 200, body),
      (err: unknown) => sendJson(res, 500, JSON.stringify({ error: String(err) })),
    );
  },
  async () => {
    await database.close();
    unlock();
  },
);
