import type { Selectable } from 'kysely';

/**
 * A deleted call's tombstone (DELETE /calls/{id}): its ids and when, nothing of its content. A provider event or
 * reconciliation naming it changes nothing, so the call is never made again.
 */
export interface DeletedCallsTable {
  call_id: string;
  customer_id: string;
  /** The provider's handle of the call, if it had one: late provider events name the call by it. */
  provider_call_id: string | null;
  deleted_at: Date;
}
export type DeletedCallRow = Selectable<DeletedCallsTable>;
