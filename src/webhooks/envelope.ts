import type { EventRow } from '../events/events.table.ts';

/**
 * The delivered body: the spec envelope (event, timestamp, data) plus our additive `id` and `sequence`
 * (per call), so receivers can de-duplicate at-least-once deliveries and order the events of one call.
 */
export function envelopeOf(event: Pick<EventRow, 'id' | 'type' | 'occurred_at' | 'sequence' | 'data'>) {
  return {
    id: event.id,
    event: event.type,
    timestamp: event.occurred_at.toISOString(),
    sequence: event.sequence,
    data: event.data,
  };
}
