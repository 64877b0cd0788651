import { createHash } from 'node:crypto';
import type { Database } from '../db/index.ts';
import { AppError, invalidInput } from '../errors/index.ts';
import * as repo from './idempotency.repository.ts';

/** Records are honoured for 24 hours from the first request, then purged. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;
/** An in-flight record older than this belongs to a request that died; a retry may take it over. */
export const IN_FLIGHT_STALE_MS = 60_000;
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

export type Claim = { kind: 'owned'; resourceId: string } | { kind: 'replay'; status: number; body: unknown };

/** The Idempotency-Key header: 1 to 255 printable ASCII characters, sent once. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header !== 'string' || !KEY_RE.test(header) || header.trim() === '') {
    throw invalidInput([
      {
        path: ['header', 'idempotency-key'],
        message: 'Must be 1 to 255 printable ASCII characters, sent once.',
      },
    ]);
  }
  return header;
}

/** SHA-256 of the body as canonical JSON (keys sorted), so key order and spacing do not matter. */
export function requestHash(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== undefined)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

const conflict = (detail: string) => new AppError('resource.conflict', detail);

/**
 * Claims an Idempotency-Key inside the placing transaction. The unique key (customer, key) decides
 * between concurrent requests: exactly one owns it, the others see its record. A failed placement (or send),
 * or one abandoned in flight, is resumed with the same call (message) id, which the provider deduplicates on.
 */
export async function claimIdempotencyKey(
  tx: Database,
  o: { customerId: string; key: string; hash: string; resourceId: string; now: Date },
): Promise<Claim> {
  const k = { customerId: o.customerId, key: o.key };
  await repo.purgeBefore(tx, o.customerId, new Date(o.now.getTime() - IDEMPOTENCY_RETENTION_MS));
  if (await repo.insertIfAbsent(tx, { ...k, hash: o.hash, resourceId: o.resourceId, now: o.now })) {
    return { kind: 'owned', resourceId: o.resourceId };
  }
  const row = await repo.find(tx, k);
  if (!row) throw conflict('This Idempotency-Key is being released; retry the request.');
  if (row.request_hash !== o.hash) {
    throw conflict('This Idempotency-Key was already used with a different request body.');
  }
  if (row.state === 'resource_deleted') {
    throw conflict(
      'What this Idempotency-Key made has since been deleted; nothing is made again. Send a new key to make another.',
    );
  }
  if (row.state === 'completed')
    return {
      kind: 'replay',
      status: row.response_status ?? 201,
      body: JSON.parse(row.response_body ?? 'null') as unknown,
    };
  const abandoned =
    row.state === 'in_flight' && row.updated_at.getTime() < o.now.getTime() - IN_FLIGHT_STALE_MS;
  if ((row.state === 'failed' || abandoned) && (await repo.resume(tx, k, row, o.now))) {
    return { kind: 'owned', resourceId: row.resource_id };
  }
  throw conflict('A request with this Idempotency-Key is still in progress; retry it in a few seconds.');
}

/** Purges every customer's records past the retention (a customer who stops placing calls never claims again). */
export const purgeExpiredIdempotencyKeys = (db: Database, now: Date): Promise<number> =>
  repo.purgeAllBefore(db, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS));
