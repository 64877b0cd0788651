import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { findAssistant } from './assistants.repository.ts';

/** An assistant's numbers, whichever customer's it is (operator tools); undefined when there is no such assistant. */
export async function assistantNumbers(db: Database, assistantId: string): Promise<string[] | undefined> {
  return (await findAssistant(db, assistantId))?.phone_numbers;
}

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
