import type { Command } from 'commander';
import type { CallDataSettings, CustomerView, RetentionChoice } from '../customers/index.ts';
import { type Cli, csv, listed, output } from './context.ts';

const days = (n: number | null) => (n === null ? 'for ever' : `${n} day${n === 1 ? '' : 's'}`);

/** A customer's call data settings in one line. */
const callDataText = (id: string, c: CallDataSettings) =>
  `Customer ${id}: calls kept ${days(c.call_retention_days)}${c.call_retention_is_default ? ' (default)' : ''}, ` +
  `transcripts ${c.redact_transcripts ? 'redacted' : 'not redacted'}`;

/** `--days`: a number of days, `forever`, or `default` (CALL_RETENTION_DAYS_DEFAULT again). */
function retentionOption(v: string): RetentionChoice {
  if (v === 'default' || v === 'forever') return v;
  if (!/^\d+$/.test(v))
    throw new Error(`--days must be a number of days, "forever" or "default", not "${v}".`);
  return Number(v);
}

const limitsText = (c: CustomerView) =>
  `outbound ${listed(c.outbound_countries)}${c.outbound_countries_is_default ? ' (default)' : ''}, ` +
  `keys capped at $${c.outbound_max_daily_cap_usd}/day${c.outbound_max_daily_cap_is_default ? ' (default)' : ''}`;

/** `default`: follow the OUTBOUND_*_DEFAULT variable again; `none` (countries): no region at all. */
const countriesOption = (v: string | undefined) =>
  v === undefined ? undefined : v === 'default' ? null : v === 'none' ? [] : csv(v);
const capOption = (v: string | undefined) => (v === 'default' ? null : v);

export function registerCustomerCommands(program: Command, cli: Cli): void {
  const customers = program.command('customers').description('Create and list customers');

  customers
    .command('create')
    .description('Create a customer')
    .requiredOption('--name <name>', 'display name')
    .option('--rate-limit <perMinute>', 'plan ceiling in requests per minute (1-600)', Number)
    .option('--json', 'print JSON')
    .action((opts: { name: string; rateLimit?: number; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const customer = await services.customers.createCustomer({
          name: opts.name,
          ...(opts.rateLimit === undefined ? {} : { rateLimitPerMinute: opts.rateLimit }),
        });
        output(
          cli,
          opts,
          customer,
          () =>
            `Created customer ${customer.id} (${customer.name}), ${customer.rate_limit_per_minute}/min, ${limitsText(customer)}`,
        );
      }),
    );

  customers
    .command('list')
    .description('List customers')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const list = await services.customers.listCustomers();
        output(
          cli,
          opts,
          list,
          () =>
            list
              .map((c) => `${c.id}  ${c.rate_limit_per_minute}/min  ${limitsText(c)}  ${c.name}`)
              .join('\n') || '(none)',
        );
      }),
    );

  customers
    .command('set-rate-limit')
    .description("Change a customer's plan ceiling (requests per minute, up to 600)")
    .argument('<customerId>')
    .argument('<perMinute>', 'requests per minute', Number)
    .option('--json', 'print JSON')
    .action((customerId: string, perMinute: number, opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const c = await services.customers.setRateLimit(customerId, perMinute);
        output(cli, opts, c, () => `Customer ${c.id} now allows ${c.rate_limit_per_minute}/min`);
      }),
    );

  customers
    .command('purge-test-data')
    .description(
      'Delete every test-mode object of a customer (calls, events, subscriptions…); live data is kept',
    )
    .argument('<customerId>')
    .option('--json', 'print JSON')
    .action((customerId: string, opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const r = await services.customers.purgeTestData(customerId);
        output(cli, opts, r, () =>
          r.purged
            ? `Deleted the test data of customer ${r.customerId}; its test keys keep working, on empty test data`
            : `Customer ${r.customerId} has no test data`,
        );
      }),
    );

  customers
    .command('set-retention')
    .description(
      "How long a customer's calls are kept (everything of them is deleted past it), within CALL_RETENTION_DAYS_MIN/MAX",
    )
    .argument('<customerId>')
    .requiredOption(
      '--days <days>',
      'a number of days; "forever"; or "default" for CALL_RETENTION_DAYS_DEFAULT',
    )
    .option('--json', 'print JSON')
    .action((customerId: string, opts: { days: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const c = await services.customers.setCallRetention(customerId, retentionOption(opts.days));
        output(cli, opts, c, () => callDataText(customerId, c));
      }),
    );

  customers
    .command('set-redaction')
    .description(
      "Mask phone numbers, e-mail addresses and card numbers in a customer's transcripts and summaries (or stop)",
    )
    .argument('<customerId>')
    .requiredOption('--transcripts <onOrOff>', '"on" or "off"')
    .option('--json', 'print JSON')
    .action((customerId: string, opts: { transcripts: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        if (opts.transcripts !== 'on' && opts.transcripts !== 'off')
          throw new Error(`--transcripts must be "on" or "off", not "${opts.transcripts}".`);
        const c = await services.customers.setTranscriptRedaction(customerId, opts.transcripts === 'on');
        output(cli, opts, c, () => callDataText(customerId, c));
      }),
    );

  customers
    .command('set-outbound-limits')
    .description(
      'Bound every key of a customer: the regions it may call and the largest daily cap (existing keys at once)',
    )
    .argument('<customerId>')
    .option(
      '--countries <list>',
      'e.g. US,CA,GB or +882 (no country); "none", or "default" for OUTBOUND_COUNTRIES_DEFAULT',
    )
    .option('--max-daily-cap <usd>', 'e.g. 200.00; "default" for OUTBOUND_MAX_DAILY_CAP_DEFAULT')
    .option('--json', 'print JSON')
    .action((customerId: string, opts: { countries?: string; maxDailyCap?: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        if (opts.countries === undefined && opts.maxDailyCap === undefined)
          throw new Error('Give --countries, --max-daily-cap or both.');
        const c = await services.customers.setOutboundLimits(customerId, {
          countries: countriesOption(opts.countries),
          maxDailyCapUsd: capOption(opts.maxDailyCap),
        });
        const held = (await services.keys.listKeys(customerId)).filter(
          (k) => k.status === 'active' && k.narrowed_by_customer_limits,
        );
        output(cli, opts, c, () =>
          [
            `Customer ${c.id}: ${limitsText(c)}`,
            ...(held.length > 0
              ? [
                  `${held.length} active key(s) store a wider allowlist or cap and are held to these limits from now on ` +
                    `(keys list --customer ${c.id}).`,
                ]
              : []),
          ].join('\n'),
        );
      }),
    );
}
