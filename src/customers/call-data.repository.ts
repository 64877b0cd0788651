import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/**
 * A customer's call data settings; a test twin follows its customer's (test data is kept and masked as live data
 * is).
 */
export async function findCallDataSettings(
  db: Database,
  customerId: string,
): Promise<{ call_retention_days: number | null; redact_transcripts: boolean } | undefined> {
  const { rows } = await sql<{ call_retention_days: number | null; redact_transcripts: boolean }>`
    select a.call_retention_days, a.redact_transcripts
    from customers c join customers a on a.id = coalesce(c.live_customer_id, c.id)
    where c.id = ${customerId}`.execute(db);
  return rows[0];
}

export async function updateCallDataSettings(
  db: Database,
  customerId: string,
  changes: { call_retention_days?: number | null; redact_transcripts?: boolean },
): Promise<boolean> {
  const r = await db
    .updateTable('customers')
    .set(changes)
    .where('id', '=', customerId)
    .where('live_customer_id', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Every customer row (test twins with their customer's choice) and the retention its customer chose (null: the
 * default). `chosenOnly`: only those that chose one, when the default and the bounds keep the others for ever.
 */
export async function retentionChoices(
  db: Database,
  o: { chosenOnly: boolean },
): Promise<{ id: string; chosen: number | null }[]> {
  const { rows } = await sql<{ id: string; chosen: number | null }>`
    select c.id, a.call_retention_days as chosen
    from customers c join customers a on a.id = coalesce(c.live_customer_id, c.id)
    where ${o.chosenOnly} = false or a.call_retention_days is not null
    order by c.id`.execute(db);
  return rows;
}
