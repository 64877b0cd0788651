import type { CallRow, Database } from '../db/index.ts';
import type { PlacedCall } from '../provider/index.ts';
import * as repo from './lifecycle.repository.ts';

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

/** Removes a call the provider never took; its tracking row goes with it (its reservation is outbound's to remove). */
export async function removeUnplacedCall(tx: Database, callId: string): Promise<void> {
  await tx.deleteFrom('calls').where('id', '=', callId).execute();
}
