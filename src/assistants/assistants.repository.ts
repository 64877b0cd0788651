import { sql } from 'kysely';
import type { AssistantRow, Database } from '../db/index.ts';

export async function insertAssistant(db: Database, row: AssistantRow): Promise<void> {
  await db.insertInto('assistants').values(row).execute();
}

export type AssistantFilter = { customerId: string; id?: string | undefined };
export type AssistantPageStart = { after: { atIso: string; id: string } } | { offset: number };

const scoped = (db: Database, f: AssistantFilter) => {
  let q = db.selectFrom('assistants').where('customer_id', '=', f.customerId);
  if (f.id) q = q.where('id', '=', f.id);
  return q;
};

/**
 * Newest first (`created_at desc, id desc`): a range scan on assistants_customer_idx. Every row also carries
 * `total` (how many match) and, after a cursor, `before` (how many precede the page), so a page is one round
 * trip; a page past the end has no row to carry them (`countAssistants`).
 */
export function assistantPageQuery(
  db: Database,
  f: AssistantFilter,
  start: AssistantPageStart,
  limit: number,
) {
  let q = scoped(db, f).select([
    'id',
    'name',
    'description',
    'language',
    'voice_id',
    'is_active',
    'phone_numbers',
    'created_at',
    'updated_at',
    sql<string>`(extract(epoch from created_at) * 1000000)::bigint::text`.as('position_micros'),
    countQuery(db, f).as('total'),
    ('after' in start ? countQuery(db, f, start.after) : sql<null>`null`).as('before'),
  ]);
  if ('after' in start) {
    const { atIso, id } = start.after;
    q = q.where(sql<boolean>`(created_at, id) < (${atIso}::timestamptz, ${id}::uuid)`);
  }
  q = q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  return 'offset' in start && start.offset > 0 ? q.offset(start.offset) : q;
}

export type AssistantListRow = Awaited<ReturnType<ReturnType<typeof assistantPageQuery>['execute']>>[number];

/** How many assistants match; with `upTo`, only those at or before that position (the cursor's offset). */
export async function countAssistants(
  db: Database,
  f: AssistantFilter,
  upTo?: { atIso: string; id: string },
): Promise<number> {
  const row = await countQuery(db, f, upTo).executeTakeFirstOrThrow();
  return Number(row.n);
}

function countQuery(db: Database, f: AssistantFilter, upTo?: { atIso: string; id: string }) {
  const q = scoped(db, f).select((eb) => eb.fn.countAll<string | number | bigint>().as('n'));
  return upTo ? q.where(sql<boolean>`(created_at, id) >= (${upTo.atIso}::timestamptz, ${upTo.id}::uuid)`) : q;
}

/** The fields placing or receiving a call needs, whichever customer owns the assistant (callers check). */
export async function findAssistant(db: Database, assistantId: string) {
  return db
    .selectFrom('assistants')
    .select(['id', 'customer_id', 'name', 'language', 'is_active', 'phone_numbers'])
    .where('id', '=', assistantId)
    .executeTakeFirst();
}
