import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { findAssistant } from './assistants.repository.ts';

/** An assistant's numbers, whichever customer's it is (operator tools); undefined when there is no such assistant. */
export async function assistantNumbers(db: Database, assistantId: string): Promise<string[] | undefined> {
  return (await findAssistant(db, assistantId))?.phone_numbers;
}

/**
 * The name of the assistant `assistantId` names (a column reference such as `c.assistant_id`), as an expression
 * another module's query selects: one primary-key lookup per row, and the assistants table named only here.
 */
export const assistantNameOf = (assistantId: string): RawBuilder<string> =>
  sql<string>`(select a.name from assistants a where a.id = ${sql.ref(assistantId)})`;

/** The language of the assistant `assistantId` names, as an expression (see `assistantNameOf`). */
export const assistantLanguageOf = (assistantId: string): RawBuilder<string> =>
  sql<string>`(select a.language from assistants a where a.id = ${sql.ref(assistantId)})`;

/** A random active assistant with a phone number: where demo inbound traffic goes. */
export async function randomInboundTarget(db: Database) {
  return db
    .selectFrom('assistants')
    .select(['id', 'language', 'phone_numbers'])
    .where('is_active', '=', true)
    .where(sql<boolean>`cardinality(phone_numbers) > 0`)
    .orderBy(sql`random()`)
    .limit(1)
    .executeTakeFirst();
}

/** A customer's active assistants with a phone number: where simulated inbound calls go. */
export async function inboundTargets(db: Database, customerId: string) {
  return db
    .selectFrom('assistants')
    .select(['id', 'language', 'phone_numbers'])
    .where('customer_id', '=', customerId)
    .where('is_active', '=', true)
    .where(sql<boolean>`cardinality(phone_numbers) > 0`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The assistant a number belongs to, for an inbound text message: among `accountId`'s assistants when given (test
 * mode), else any customer's; an active one first, then the oldest. Undefined when no assistant has the number.
 */
export async function assistantForNumber(db: Database, number: string, accountId?: string) {
  let q = db
    .selectFrom('assistants')
    .select(['id', 'customer_id'])
    .where(sql<boolean>`${number} = any (phone_numbers)`);
  if (accountId) q = q.where('customer_id', '=', accountId);
  return q.orderBy('is_active', 'desc').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}

/** Every number of every assistant, with its assistant (the operator's `sms numbers` on the simulator). */
export async function allAssistantNumbers(db: Database): Promise<{ number: string; assistantId: string }[]> {
  const rows = await db
    .selectFrom('assistants')
    .select(['id', sql<string>`unnest(phone_numbers)`.as('number')])
    .orderBy('number')
    .execute();
  return rows.map((r) => ({ number: r.number, assistantId: r.id }));
}
