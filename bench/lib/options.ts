import { parseArgs } from 'node:util';

export type BackendName = 'embedded' | 'postgres';
export type LoadToolName = 'wrk' | 'autocannon';

/** Data-set and run sizes; `--quick` shrinks every one of them (and says so in the report). */
export type Sizes = {
  label: 'full' | 'quick';
  customers: number;
  assistantsPerCustomer: number;
  keysPerCustomer: number;
  /** Calls spread over `customers` (scenario 1). */
  calls: number;
  /** Calls of the one large customer (scenario 3). */
  deepCalls: number;
  /** Customers and keys that place outbound calls (scenario 5), kept apart from the read data. */
  outboundCustomers: number;
  outboundKeysPerCustomer: number;
  /** Length of one measured load run, and of the warm-up before it. */
  loadSeconds: number;
  warmupSeconds: number;
  /**
   * Scenario 1's paced runs (service and floor at half the service's maximum): this many windows of this length,
   * the row reading the window with the median p99 (bench/scenarios/s1-list-calls.ts says why).
   */
  pacedWindows: number;
  pacedSeconds: number;
  /** Sequential requests per URL in the pagination scenario (cursor pages; `page` gets fewer). */
  pageSamples: number;
  deepPageSamples: number;
  /** Webhook scenario: events × subscriptions deliveries in the throughput run. */
  webhookEvents: number;
  /**
   * The same on PGlite, whose single connection delivers fewer per second: 5,000 events (50,000 deliveries, several
   * seconds), since 500 drained in 0.7 s once the worker reached 7,500/s and two runs read 0.25 and 0.31.
   */
  webhookEventsEmbedded: number;
  webhookSubscriptions: number;
  /** Steady event rate and duration of the latency run. */
  latencyEventsPerSecond: number;
  latencySeconds: number;
  /** Duration of the burst-with-a-blip run (same rate; one receiver answers 500 for 2 s of it). */
  blipSeconds: number;
  /** Events in the run with one receiver that never answers (and in its baseline). */
  hangEvents: number;
  /** The same on PGlite. */
  hangEventsEmbedded: number;
  /** Pairs of runs without and with it (alternating which comes first); the row reads the median pair. */
  hangRounds: number;
  profileSeconds: number;
};

export const FULL: Sizes = {
  label: 'full',
  customers: 1000,
  assistantsPerCustomer: 3,
  keysPerCustomer: 10,
  calls: 1_000_000,
  deepCalls: 1_000_000,
  outboundCustomers: 200,
  outboundKeysPerCustomer: 5,
  loadSeconds: 15,
  warmupSeconds: 3,
  pacedWindows: 5,
  pacedSeconds: 6,
  pageSamples: 200,
  deepPageSamples: 15,
  webhookEvents: 100_000,
  webhookEventsEmbedded: 5_000,
  webhookSubscriptions: 10,
  latencyEventsPerSecond: 1000,
  latencySeconds: 10,
  blipSeconds: 10,
  hangEvents: 2_000,
  hangEventsEmbedded: 1_000,
  hangRounds: 15,
  profileSeconds: 10,
};

// The quick data set keeps the full one's shape: as many calls per customer (a customer's list reads as deep an
// index range; with 100 per customer GET /calls ran 1.5× faster than on the full set, which moved every figure set
// against it) and as many keys (10,000). Not fewer than 400 customers: the bench's load counts against each
// customer's 600 requests a minute, and whoami's 7 s at 10,000 req/s over 100 customers ran into it.
export const QUICK: Sizes = {
  label: 'quick',
  customers: 400,
  assistantsPerCustomer: 3,
  keysPerCustomer: 25,
  calls: 400_000,
  deepCalls: 100_000,
  outboundCustomers: 200,
  outboundKeysPerCustomer: 5,
  // Long enough that the throughput ratios read about as in a full run (docs/performance.md, the sixteenth
  // section); 200 events drained in a fraction of a second. Not longer: at 8 s whoami's load in memory ran past its
  // customers' 600 requests a minute (400 customers; the nineteenth section), and scenario 5 agreed no better.
  loadSeconds: 5,
  warmupSeconds: 2,
  // The full run's windows: 3 s ones read PGlite's tail ratio 1.39 and 1.01 in two quick runs of the same code.
  pacedWindows: 5,
  pacedSeconds: 6,
  // A median of 20 page times, a p99 of 1,000 deliveries and pairs of 100-event drains read a figure's noise more
  // than the figure (docs/performance.md, the eighteenth section): enough samples that they settle.
  pageSamples: 60,
  deepPageSamples: 4,
  webhookEvents: 2_000,
  webhookEventsEmbedded: 500,
  webhookSubscriptions: 10,
  latencyEventsPerSecond: 1000,
  latencySeconds: 3,
  blipSeconds: 4,
  hangEvents: 500,
  hangEventsEmbedded: 250,
  hangRounds: 7,
  profileSeconds: 2,
};

export type BenchOptions = {
  sizes: Sizes;
  scenarios: Set<number>;
  backends: BackendName[];
  /** Forced load tool; null = wrk when installed, else autocannon. */
  tool: LoadToolName | null;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Seed again even when a cached data set matches. */
  reseed: boolean;
  out: string | undefined;
  /** Print the tables of an existing JSON report instead of running. */
  render: string | undefined;
  /** Two JSON reports (full, then quick) to set side by side instead of running. */
  compare: [string, string] | undefined;
};

/** Scenarios 1 to 8; a run of all of them is written as `latest.json` (or `latest-quick.json`). */
export const SCENARIOS = 8;

export const USAGE = `npm run bench -- [options]

  --quick              smaller data set (400,000 calls) and short runs: a few minutes with a warm cache
  --scenario N         run only scenario N (1-8); repeat or comma-separate for several
  --backend NAME       embedded | postgres (default: embedded, plus postgres when DATABASE_URL is set)
  --tool NAME          wrk | autocannon (default: wrk when installed, else autocannon)
  --reseed             rebuild the cached data set
  --webhook-events N   events of the scenario 4 throughput run on PostgreSQL (default 100,000 × 10
                       subscriptions; 2,000 with --quick; PGlite always uses its own: 5,000, 500 with --quick)
  --out FILE           also write the JSON report to FILE
  --render FILE        print the tables of a JSON report (e.g. bench/results/latest.json) and exit
  --compare A --compare B
                       print every figure both reports hold, B's ÷ A's, and whether it lies within 20 %
                       (e.g. a full run, then a quick one), and exit

Environment: DATABASE_URL (the bench creates its own database beside the one named, never writes to it),
REDIS_URL (rate limits in Redis), BENCH_CACHE_DIR (default bench/results/cache).`;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      backend: { type: 'string', multiple: true },
      tool: { type: 'string' },
      reseed: { type: 'boolean', default: false },
      'webhook-events': { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
      compare: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const scenarios = new Set<number>();
  for (const part of (values.scenario ?? []).flatMap((s) => s.split(','))) {
    const n = Number(part);
    if (!Number.isInteger(n) || n < 1 || n > SCENARIOS)
      throw new Error(`--scenario must be 1 to ${SCENARIOS}, got "${part}"`);
    scenarios.add(n);
  }
  if (scenarios.size === 0) for (let n = 1; n <= SCENARIOS; n++) scenarios.add(n);
  const databaseUrl = env.DATABASE_URL || undefined;
  const requested = (values.backend ?? []).flatMap((s) => s.split(','));
  for (const b of requested)
    if (b !== 'embedded' && b !== 'postgres') throw new Error(`--backend must be embedded or postgres`);
  const backends: BackendName[] = requested.length
    ? (requested as BackendName[])
    : databaseUrl
      ? ['embedded', 'postgres']
      : ['embedded'];
  if (backends.includes('postgres') && !databaseUrl) throw new Error('--backend postgres needs DATABASE_URL');
  if (values.tool !== undefined && values.tool !== 'wrk' && values.tool !== 'autocannon')
    throw new Error('--tool must be wrk or autocannon');
  const sizes = { ...(values.quick ? QUICK : FULL) };
  if (values['webhook-events'] !== undefined) {
    const n = Number(values['webhook-events']);
    if (!Number.isInteger(n) || n < 10 || n > 1_000_000)
      throw new Error('--webhook-events must be 10 to 1,000,000');
    sizes.webhookEvents = n;
  }
  const [first, second, ...more] = values.compare ?? [];
  if (values.compare && (!first || !second || more.length > 0))
    throw new Error('--compare takes two reports: --compare FULL.json --compare QUICK.json');
  return {
    sizes,
    scenarios,
    backends,
    tool: values.tool ?? null,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    reseed: values.reseed,
    out: values.out,
    render: values.render,
    compare: first && second ? [first, second] : undefined,
  };
}
