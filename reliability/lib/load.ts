import type { Client, Outcome } from './client.ts';
import { sleep } from './client.ts';

export type Operation = {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  /** Whether this request stores something (checked afterwards: no accepted write may be lost). */
  write?: boolean;
};

export type Sample = Outcome & { op: string; write: boolean; startedAt: number; phase: string };

export type LoadUser = { key: string; next: (i: number) => Operation };

/**
 * Steady closed-loop load: one loop per user, each sending its next operation, then pausing `pauseMs`.
 * Bounded by `stop()` and by `maxRequests` per user; every request is bounded by `boundMs`.
 */
export function startLoad(
  client: Client,
  users: LoadUser[],
  options: { pauseMs: number; boundMs: number; maxRequests: number; phase: () => string },
) {
  const samples: Sample[] = [];
  let active = true;
  const loops = users.map(async (user) => {
    for (let i = 0; active && i < options.maxRequests; i++) {
      const op = user.next(i);
      const startedAt = Date.now();
      const phase = options.phase();
      const out = await client.send(op.method, op.path, {
        key: user.key,
        ...(op.body !== undefined ? { body: op.body } : {}),
        boundMs: options.boundMs,
      });
      samples.push({ ...out, op: op.name, write: op.write ?? false, startedAt, phase });
      await sleep(options.pauseMs);
    }
  });
  return {
    samples,
    async stop() {
      active = false;
      await Promise.all(loops);
    },
  };
}
