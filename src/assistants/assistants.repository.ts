import type { Database } from '../db/database.ts';
import type { AssistantRow } from './assistants.table.ts';

export async function insertAssistant(db: Database, row: AssistantRow): Promise<void> {
  await db.insertInto('assistants').values(row).execute();
}
