import type { Command } from 'commander';
import { AppError } from '../errors/index.ts';
import type { KeyView } from '../keys/index.ts';
import { AUTOMATION_PRESET, SCOPES } from '../keys/scopes.ts';
import { type Cli, csv, listed, output } from './context.ts';

/** What the key can call and spend; where its stored values are wider than its customer's limits, those too. */
const outbound = (k: KeyView) =>
  `outbound ${listed(k.effective_allowed_countries)} $${k.effective_daily_spend_cap_usd}/day` +
  (k.narrowed_by_customer_limits
    ? ` (stored ${listed(k.allowed_countries)} $${k.daily_spend_cap_usd}/day: held to the customer's limits)`
    : '');

const line = (k: KeyView) =>
  `${k.id}  ${k.prefix}  ${k.status.padEnd(7)}  ${k.name}  [${k.scopes.join(', ')}]  ${outbound(k)}  expires ${k.expires_at ?? 'never'}`;

function scopesFrom(opts: { scopes?: string; preset?: string }): string[] {
  if (opts.preset === 'automation') return [...AUTOMATION_PRESET];
  if (opts.preset === 'all') return [...SCOPES];
  if (opts.preset)
    throw new AppError('input.invalid', `Unknown preset "${opts.preset}" (use automation or all).`);
  return csv(opts.scopes ?? '');
}

export function registerKeyCommands(program: Command, cli: Cli): void {
  const keys = program.command('keys').description('Create, list, rotate and revoke API keys');

  keys
    .command('create')
    .description('Create a key and print its value once')
    .requiredOption('--customer <customerId>', 'owning customer')
    .requiredOption('--name <name>', 'label')
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`)
    .option('--preset <preset>', 'automation (read_assistants,read_calls,manage_webhooks) or all')
    .option('--expires-at <iso>', 'expiry time (ISO-8601)')
    .option(
      '--spend-cap <usd>',
      "daily outbound spend cap in USD, e.g. 50.00 (at most the customer's largest)",
    )
    .option('--countries <list>', "outbound allowlist within the customer's limits, e.g. US,CA or +882")
    .option(
      '--rate-limit <perMinute>',
      'per-key window ceiling (1-600; default from KEY_RATE_LIMIT_PER_MINUTE)',
      Number,
    )
    .option('--test', 'a test-mode key (svc_test_): it sees only test data and calls nobody (TEST_MODE)')
    .option('--json', 'print JSON')
    .action(
      (opts: {
        customer: string;
        name: string;
        test?: boolean;
        scopes?: string;
        preset?: string;
        expiresAt?: string;
        spendCap?: string;
        countries?: string;
        rateLimit?: number;
        json?: boolean;
      }) =>
        cli.withRuntime(async ({ services }) => {
          const expiresAt = opts.expiresAt ? new Date(opts.expiresAt) : null;
          if (expiresAt && Number.isNaN(expiresAt.getTime()))
            throw new AppError('input.invalid', '--expires-at must be an ISO-8601 time.');
          const { key, secret } = await services.keys.createKey({
            customerId: opts.customer,
            name: opts.name,
            scopes: scopesFrom(opts),
            expiresAt,
            ...(opts.spendCap ? { dailySpendCapUsd: opts.spendCap } : {}),
            ...(opts.countries ? { allowedCountries: csv(opts.countries) } : {}),
            ...(opts.rateLimit === undefined ? {} : { rateLimitPerMinute: opts.rateLimit }),
            ...(opts.test ? { mode: 'test' as const } : {}),
          });
          output(
            cli,
            opts,
            { ...key, secret },
            () => `${line(key)}\n\nKey (shown once, store it now):\n${secret}`,
          );
        }),
    );

  keys
    .command('list')
    .description('List keys, by customer or by prefix')
    .option('--customer <customerId>')
    .option('--prefix <prefix>', 'the first characters of a key, e.g. svc_live_abc')
    .option('--json', 'print JSON')
    .action((opts: { customer?: string; prefix?: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const list = await services.operator.keys.listKeys({
          ...(opts.customer ? { customerId: opts.customer } : {}),
          ...(opts.prefix ? { prefix: opts.prefix } : {}),
        });
        output(cli, opts, list, () => list.map(line).join('\n') || '(none)');
      }),
    );

  keys
    .command('scopes')
    .description("Replace a key's scopes (effective on the next request)")
    .argument('<keyId>')
    .requiredOption('--scopes <list>', 'comma-separated scopes (may be empty: "")')
    .option('--json', 'print JSON')
    .action((keyId: string, opts: { scopes: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const key = await services.operator.keys.setScopes(keyId, csv(opts.scopes));
        output(cli, opts, key, () => line(key));
      }),
    );

  keys
    .command('rotate')
    .description('Issue a new value for the key; the old value works until the grace period ends')
    .argument('<keyId>')
    .option('--json', 'print JSON')
    .action((keyId: string, opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const r = await services.operator.keys.rotateKey(keyId);
        output(
          cli,
          opts,
          { ...r.key, secret: r.secret, previous_valid_until: r.previousValidUntil },
          () =>
            `${line(r.key)}\nOld value valid until ${r.previousValidUntil}\n\nNew key (shown once):\n${r.secret}`,
        );
      }),
    );

  keys
    .command('revoke')
    .description('Revoke a key: immediate and irreversible')
    .argument('<keyId>')
    .option('--json', 'print JSON')
    .action((keyId: string, opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const key = await services.operator.keys.revokeKey(keyId);
        output(cli, opts, key, () => line(key));
      }),
    );
}
