/** What one claim may take: how many deliveries, and how many per subscription (`others` for any not named). */
export type ClaimRoom = { limit: number; rooms: ReadonlyMap<string, number>; others: number };

/**
 * The room for a new claim: the free slots and each subscription's share (`perSubscription`, or less while its
 * receiver times out), less what is in flight and less
 * all that the claims still waiting for the database could take. So a claim can start while another is
 * out, and no subscription ever gets more than its share.
 */
export function roomForClaim(o: {
  slots: number;
  perSubscription: number;
  /** Subscriptions whose share is below `perSubscription` now (src/webhooks/endpoint-limits.ts). */
  held?: ReadonlyMap<string, number>;
  inFlight: ReadonlyMap<string, number>;
  claiming: Iterable<ClaimRoom>;
}): ClaimRoom {
  const claiming = [...o.claiming];
  const held = o.held ?? new Map<string, number>();
  const named = new Set([
    ...o.inFlight.keys(),
    ...held.keys(),
    ...claiming.flatMap((c) => [...c.rooms.keys()]),
  ]);
  const rooms = new Map<string, number>();
  for (const id of named) {
    const reserved = claiming.reduce((sum, c) => sum + (c.rooms.get(id) ?? c.others), 0);
    const share = held.get(id) ?? o.perSubscription;
    rooms.set(id, share - (o.inFlight.get(id) ?? 0) - reserved);
  }
  return {
    limit: o.slots - claiming.reduce((sum, c) => sum + c.limit, 0),
    rooms,
    others: o.perSubscription - claiming.reduce((sum, c) => sum + c.others, 0),
  };
}
