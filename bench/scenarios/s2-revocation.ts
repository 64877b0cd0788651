import { systemClock } from '../../src/clock.ts';
import { createKeyHasher } from '../../src/keys/key-hash.ts';
import { createKeysService } from '../../src/keys/keys.service.ts';
import { DEFAULT_OUTBOUND_LIMITS } from '../../src/outbound-limits.ts';
import { addRaw, addRow, type Ctx } from '../lib/context.ts';
import { httpsGet } from '../lib/https-get.ts';
import { BENCH_SERVER_SECRET } from '../lib/paths.ts';
import { judge, ms } from '../lib/report.ts';

const RUNS = 10;
const TARGET_MS = 100;
const GIVE_UP_MS = 5_000;

/**
 * Revocation visibility (PostgreSQL): the service holds a key in memory (it has just answered with it), this
 * process revokes it through the keys service (its own transaction sends the notification, as the CLI or
 * another instance would), and the service is asked again until it refuses the key. The figure is the time from
 * the commit to the first refusal. Each run uses a new key of the first bench customer (left revoked: a few rows).
 */
export async function revocationVisibility(ctx: Ctx, url: string): Promise<void> {
  const customer = ctx.fixture.main[0];
  if (!customer) throw new Error('the data set has no customer');
  const handle = await ctx.backend.open();
  const whoami = `${url}/api/v1/auth/whoami`;
  const delays: number[] = [];
  try {
    const keys = createKeysService({
      db: handle.db,
      hasher: createKeyHasher(BENCH_SERVER_SECRET),
      clock: systemClock,
      rotationGraceSeconds: 0,
      // What the bench's server runs with: no OUTBOUND_* variable set.
      outboundDefaults: DEFAULT_OUTBOUND_LIMITS,
      // This process serves no requests: it has no cache of its own to empty.
      keyCache: { changed: () => {} },
    });
    for (let i = 0; i < RUNS; i++) {
      const { key, secret } = await keys.createKey({
        customerId: customer.customerId,
        name: 'bench: revocation visibility',
        scopes: [],
      });
      for (let j = 0; j < 3; j++) {
        const r = await httpsGet(whoami, secret);
        if (r.status !== 200) throw new Error(`whoami with a new key: ${r.status} ${r.body.slice(0, 200)}`);
      }
      await keys.revokeKey(customer.customerId, key.id);
      const committed = performance.now();
      for (;;) {
        const r = await httpsGet(whoami, secret);
        if (r.status === 401) break;
        if (performance.now() - committed > GIVE_UP_MS)
          throw new Error(`a revoked key was still accepted ${GIVE_UP_MS} ms after the commit`);
      }
      delays.push(performance.now() - committed);
    }
  } finally {
    await handle.close();
  }
  delays.sort((a, b) => a - b);
  const median = delays[Math.floor(delays.length / 2)] ?? 0;
  const max = delays.at(-1) ?? 0;
  addRaw(ctx, 's2-revocation', { delaysMs: delays });
  ctx.log(`  revocation visibility: median ${ms(median)}, max ${ms(max)}`);
  addRow(ctx, {
    scenario: 2,
    what: `Revocation visibility: key held in the service's memory, revoked by another process → first 401 (max of ${RUNS})`,
    value: `median ${ms(median)}, max ${ms(max)}`,
    ratio: max,
    unit: 'ms',
    target: `≤ ${TARGET_MS} ms`,
    status: judge(max <= TARGET_MS),
    tool: 'bench',
  });
}
