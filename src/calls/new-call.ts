import type { Database, NewCall } from '../db/index.ts';
import { insertLifecycle } from './lifecycle.repository.ts';

/** What every new call is given: who, which way, between which numbers, and when. */
const START_COLUMNS = [
  'id',
  'customer_id',
  'assistant_id',
  'direction',
  'status',
  'started_at',
  'from_number',
  'to_number',
  'created_at',
  'updated_at',
] as const;
export type CallStart = Pick<NewCall, (typeof START_COLUMNS)[number]>;
type CallColumns = Required<Omit<NewCall, 'event_seq'>>;

/** The rest of a new call: empty until it is answered, ends and is post-processed. */
const EMPTY_CALL = {
  answered_at: null,
  ended_at: null,
  duration_seconds: null,
  caller_name: null,
  api_initiated: false,
  api_key_id: null,
  external_id: null,
  variables: null,
  metadata: null,
  callback_url: null,
  has_transcript: false,
  recording_available: false,
  summary: null,
  disconnect_reason: null,
  conversation_id: null,
  cost_usd: null,
  billable_seconds: null,
  livemode: true,
} as const satisfies Omit<CallColumns, keyof CallStart>;

export type CallColumn = keyof CallColumns;
/** Every column a new call row has (the event counter is the database's), in one order. */
export const CALL_COLUMNS: readonly CallColumn[] = [
  ...START_COLUMNS,
  ...(Object.keys(EMPTY_CALL) as (keyof typeof EMPTY_CALL)[]),
];
/** The value of a column a new call is not given. */
export const emptyCallValue = (column: CallColumn): null | boolean =>
  column in EMPTY_CALL ? EMPTY_CALL[column as keyof typeof EMPTY_CALL] : null;

/**
 * The one row builder of a call: live calls (inbound, placed), demo history and seeding all start here, so a call
 * has one shape whoever made it.
 */
export const newCallRow = (fields: CallStart & Partial<CallColumns>): NewCall => ({
  ...EMPTY_CALL,
  ...fields,
});

/**
 * Records a live call: its row and its tracking (the provider's handle, once known, and post-processing). A
 * resumed placement finds its row already there and keeps it.
 */
export async function createCall(
  tx: Database,
  row: NewCall,
  tracking: { providerCallId: string | null; now: Date },
): Promise<void> {
  await tx
    .insertInto('calls')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await insertLifecycle(tx, {
    call_id: row.id,
    customer_id: row.customer_id,
    provider_call_id: tracking.providerCallId,
    now: tracking.now,
  });
}
