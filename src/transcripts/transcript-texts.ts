import { redactsCallData } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import { redactText } from '../redaction.ts';
import { type RestSegment, speakerText } from './transcript-format.ts';

/**
 * The stored transcripts of several calls of one customer (an export's batch), as speaker-prefixed text; masked
 * when the customer redacts call data, as GET /calls/{id}/transcript shows them (one stored before redaction was on
 * included).
 */
export async function transcriptTexts(
  db: Database,
  customerId: string,
  callIds: readonly string[],
): Promise<Map<string, string>> {
  if (callIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('transcripts')
    .select(['call_id', 'segments'])
    .where('customer_id', '=', customerId)
    .where('call_id', 'in', callIds)
    .execute();
  const shown = (await redactsCallData(db, customerId)) ? redactText : (text: string) => text;
  return new Map(rows.map((r) => [r.call_id, shown(speakerText(r.segments as RestSegment[]))]));
}
