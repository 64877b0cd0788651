import type { Database } from '../db/database.ts';
import type { CallRow } from '../db/tables/calls.table.ts';
import type { PlacedCall } from '../provider/interface.ts';
import * as repo from '../calls/lifecycle.repository.ts';

/**
 * The lifecycle's part in placing an outbound call, inside the placing request's transaction: outbound/ owns the
 * request and the call row; the lifecycle owns the call's tracking (its provider handle and post-processing).
 */
export const trackPlacedCall = (tx: Database, callId: string, customerId: string, now: Date): Promise<void> =>
  repo.insertLifecycle(tx, { call_id: callId, customer_id: customerId, provider_call_id: null, now });

/** The placed call, locked, with the provider's handle once known; undefined when the call is gone. */
export async function lockPlacedCall(
  tx: Database,
  callId: string,
): Promise<{ call: CallRow; providerCallId: string | null } | undefined> {
  const call = await repo.lockCall(tx, callId);
  if (!call) return undefined;
  const tracking = await repo.lockLifecycle(tx, callId);
  return { call, providerCallId: tracking?.provider_call_id ?? null };
}

export const recordProviderCall = (tx: Database, callId: string, placed: PlacedCall, now: Date) =>
  repo.updateLifecycle(tx, callId, {
    provider_call_id: placed.providerCallId,
    carrier_call_id: placed.carrierCallId ?? null,
    updated_at: now,
  });
