import type { Database } from '../db/database.ts';

/**
 * Outbound calls whose placement the provider never confirmed (a timeout), older than `before`, still queued and
 * without a provider handle, with the agent they were placed as.
 */
export function unconfirmedPlacements(db: Database, before: Date, limit: number) {
  return db
    .selectFrom('call_lifecycle')
    .innerJoin('calls', 'calls.id', 'call_lifecycle.call_id')
    .innerJoin('assistant_agents', 'assistant_agents.assistant_id', 'calls.assistant_id')
    .select(['calls.id as call_id', 'assistant_agents.agent_id as agent_id'])
    .where('call_lifecycle.provider_call_id', 'is', null)
    .where('call_lifecycle.processing_state', '=', 'none')
    .where('calls.status', '=', 'queued')
    .where('calls.direction', '=', 'outbound')
    .where('call_lifecycle.created_at', '<', before)
    .orderBy('call_lifecycle.created_at')
    .limit(limit)
    .execute();
}
