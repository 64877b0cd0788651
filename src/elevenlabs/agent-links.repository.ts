import type { AgentPhoneNumbers, AssistantAgentRow, Database } from '../db/index.ts';

/** Sets (or replaces) an assistant's upstream agent and the provider's ids of its numbers. */
export async function upsertAgentLink(
  db: Database,
  link: { assistantId: string; agentId: string; phoneNumbers: AgentPhoneNumbers; now: Date },
): Promise<void> {
  const values = {
    assistant_id: link.assistantId,
    agent_id: link.agentId,
    phone_numbers: JSON.stringify(link.phoneNumbers),
    updated_at: link.now,
  };
  await db
    .insertInto('assistant_agents')
    .values(values)
    .onConflict((oc) => oc.column('assistant_id').doUpdateSet(values))
    .execute();
}

export function findAgentLink(db: Database, assistantId: string): Promise<AssistantAgentRow | undefined> {
  return db
    .selectFrom('assistant_agents')
    .selectAll()
    .where('assistant_id', '=', assistantId)
    .executeTakeFirst();
}

/** The links of several assistants (the dashboard's list). */
export function findAgentLinks(db: Database, assistantIds: string[]): Promise<AssistantAgentRow[]> {
  if (assistantIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('assistant_agents').selectAll().where('assistant_id', 'in', assistantIds).execute();
}

/** The assistant an agent answers for (the oldest link, should two assistants share one agent). */
export async function assistantForAgent(db: Database, agentId: string): Promise<string | null> {
  const row = await db
    .selectFrom('assistant_agents')
    .select('assistant_id')
    .where('agent_id', '=', agentId)
    .orderBy('updated_at')
    .limit(1)
    .executeTakeFirst();
  return row?.assistant_id ?? null;
}

/**
 * Every link, oldest first: where reconciliation looks for inbound calls and placements it missed, and what
 * `provider check` checks.
 */
export function linkedAgents(db: Database): Promise<AssistantAgentRow[]> {
  return db
    .selectFrom('assistant_agents')
    .selectAll()
    .orderBy('updated_at')
    .orderBy('assistant_id')
    .execute();
}
