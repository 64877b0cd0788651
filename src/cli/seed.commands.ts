import fs from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { type Cli, output } from './context.ts';
import type { SeedOptions } from './seed-dataset.ts';

const count = (min: number, max: number) => (raw: string) => {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
  return n;
};

type SeedFlags = Pick<
  SeedOptions,
  'customers' | 'assistantsPerCustomer' | 'calls' | 'keysPerCustomer' | 'days' | 'batchSize'
> & {
  rateLimit?: number;
  printKeys?: boolean;
  keysFile?: string;
  json?: boolean;
};

export function registerSeedCommand(program: Command, cli: Cli): void {
  program
    .command('seed')
    .description('Create a large realistic data set for benchmarks and trials (adds to what exists)')
    .option('--customers <n>', 'customers to create', count(1, 1_000_000), 10)
    .option('--assistants-per-customer <n>', 'assistants per customer', count(1, 1000), 3)
    .option('--calls <n>', 'calls in total, spread evenly over every new assistant', count(0, 1e9), 10_000)
    .option('--keys-per-customer <n>', 'API keys per customer (every grantable scope)', count(0, 100), 1)
    .option('--days <n>', 'spread started_at over this many days before now', count(1, 3650), 90)
    .option('--batch-size <n>', 'calls per INSERT statement', count(1000, 1_000_000), 25_000)
    .option('--rate-limit <perMinute>', 'ceiling of every new customer and key (1-600)', count(1, 600))
    .option('--print-keys', 'print the value of every key created (shown once)')
    .option('--keys-file <path>', 'write the created keys (with their values) as JSON to this file, mode 600')
    .option('--json', 'print a JSON summary')
    .action((flags: SeedFlags) =>
      cli.withRuntime(async ({ database, config, clock }) => {
        const [{ createKeyHasher }, { loadServerSecret }, { seedDataset }] = await Promise.all([
          import('../keys/index.ts'),
          import('../server-secret.ts'),
          import('./seed-dataset.ts'),
        ]);
        const hasher = createKeyHasher(loadServerSecret(config.serverSecret, config.dataDir));
        const began = performance.now();
        const result = await seedDataset(
          database.db,
          {
            hasher,
            clock,
            outboundDefaults: {
              countries: config.outboundCountriesDefault,
              maxDailyCapUsd: config.outboundMaxDailyCapDefault,
            },
          },
          {
            customers: flags.customers,
            assistantsPerCustomer: flags.assistantsPerCustomer,
            calls: flags.calls,
            keysPerCustomer: flags.keysPerCustomer,
            days: flags.days,
            batchSize: flags.batchSize,
            customerRateLimit: flags.rateLimit ?? config.rateLimitPerMinute,
            keyRateLimit: flags.rateLimit ?? null,
          },
          await cli.seedProgress(),
        );
        const seconds = (performance.now() - began) / 1000;
        if (flags.keysFile)
          fs.writeFileSync(path.resolve(cli.cwd, flags.keysFile), JSON.stringify(result.keys, null, 2), {
            mode: 0o600,
          });
        const summary = {
          customers: result.customers.length,
          assistants: result.assistants,
          calls: result.calls,
          keys: result.keys.length,
          seconds: Math.round(seconds * 10) / 10,
          first_customer_id: result.customers[0] ?? null,
          ...(flags.keysFile ? { keys_file: flags.keysFile } : {}),
          ...(flags.printKeys ? { created_keys: result.keys } : {}),
        };
        output(cli, flags, summary, () =>
          [
            `Seeded ${summary.customers} customers, ${summary.assistants} assistants, ${summary.keys} keys and ` +
              `${summary.calls} calls in ${summary.seconds} s (${Math.round(summary.calls / seconds)} calls/s).`,
            ...(flags.keysFile ? [`Keys written to ${flags.keysFile}.`] : []),
            ...(flags.printKeys
              ? ['', 'Keys (shown once):', ...result.keys.map((k) => `${k.customer_id}  ${k.secret}`)]
              : []),
          ].join('\n'),
        );
      }),
    );
}
