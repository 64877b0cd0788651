import type { Clock } from '../clock.ts';

export type EndpointLimits = {
  /** The subscriptions held below the maximum, with how many attempts each may have in flight. */
  held(): ReadonlyMap<string, number>;
  /** An attempt to the subscription ended: one that came back in time raises its share by one, a timeout halves it. */
  record(subscriptionId: string, attempt: { timedOut: boolean; startedAt: Date }): void;
};

/**
 * Each subscription's share of a worker's slots, adapted to how its receiver answers (AIMD, as TCP and the
 * large webhook senders do): a timeout halves the share (at least 1); an attempt that came back in time, whatever
 * it answered (an error status or a refused connection holds no slot for long), raises it by one, up to `max`.
 * A receiver that hangs holds its slots until the timeout, so after each round of timeouts it may hold half as
 * many. The timeouts of one round count once: a timeout of an attempt that started before the last cut (or at it) does not
 * cut again.
 */
export function createEndpointLimits(o: { max: number; clock: Clock }): EndpointLimits {
  const held = new Map<string, number>();
  const cutAt = new Map<string, number>();
  return {
    held: () => held,
    record(id, attempt) {
      const limit = held.get(id) ?? o.max;
      if (!attempt.timedOut) {
        if (limit + 1 >= o.max) {
          held.delete(id);
          cutAt.delete(id);
        } else held.set(id, limit + 1);
        return;
      }
      const lastCut = cutAt.get(id);
      if (lastCut !== undefined && attempt.startedAt.getTime() <= lastCut) return;
      held.set(id, Math.max(1, Math.floor(limit / 2)));
      cutAt.set(id, o.clock.now().getTime());
    },
  };
}
