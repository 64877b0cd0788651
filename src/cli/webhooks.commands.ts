import type { Command } from 'commander';
import { AppError } from '../errors/index.ts';
import type { SubscriptionView } from '../webhooks/index.ts';
import { type Cli, output } from './context.ts';

const line = (s: SubscriptionView) =>
  `${s.id}  ${s.is_active ? 'active  ' : 'disabled'}  failures=${s.consecutive_failures}  ${s.url}  [${s.events.join(', ')}]${s.disabled_reason ? `  (${s.disabled_reason})` : ''}`;

export function registerWebhookCommands(program: Command, cli: Cli): void {
  const webhooks = program
    .command('webhooks')
    .description('Inspect, re-enable and redeliver webhook subscriptions');

  webhooks
    .command('list')
    .description("List a customer's subscriptions with their state")
    .requiredOption('--customer <customerId>')
    .option('--json', 'print JSON')
    .action((opts: { customer: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const list = await services.subscriptions.listForCustomer(opts.customer);
        output(cli, opts, list, () => list.map(line).join('\n') || '(none)');
      }),
    );

  for (const [name, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    webhooks
      .command(name)
      .description(
        active
          ? 'Re-enable a subscription (resets its failure count; pending deliveries resume)'
          : 'Disable a subscription',
      )
      .argument('<subscriptionId>')
      .option('--json', 'print JSON')
      .action((id: string, opts: { json?: boolean }) =>
        cli.withRuntime(async ({ services }) => {
          const s = await services.operator.subscriptions.setActive(id, active);
          output(cli, opts, s, () => line(s));
        }),
      );
  }

  webhooks
    .command('log')
    .description('Delivery log of a subscription: each attempt with status, latency and error')
    .argument('<subscriptionId>')
    .option('--limit <n>', 'how many attempts', Number, 50)
    .option('--json', 'print JSON')
    .action((id: string, opts: { limit: number; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const log = await services.operator.subscriptions.deliveryLog(id, opts.limit);
        output(
          cli,
          opts,
          log,
          () =>
            log
              .map(
                (a) =>
                  `${a.at}  ${a.status_code ?? '---'}  ${String(a.latency_ms).padStart(5)} ms  ${a.event}  ${a.event_id}  ${a.error ?? ''}`,
              )
              .join('\n') || '(no attempts)',
        );
      }),
    );

  webhooks
    .command('redeliver')
    .description(
      'Send again every event of the subscription since a time (catch-up), or one event with --event',
    )
    .argument('<subscriptionId>')
    .requiredOption('--customer <customerId>')
    .option('--since <iso>', 'ISO-8601 time')
    .option('--event <eventId>', 'one event id')
    .option('--json', 'print JSON')
    .action((id: string, opts: { customer: string; since?: string; event?: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        if (!opts.since === !opts.event)
          throw new AppError('input.invalid', 'Give exactly one of --since or --event.');
        const since = opts.since ? new Date(opts.since) : null;
        if (since && Number.isNaN(since.getTime()))
          throw new AppError('input.invalid', '--since must be an ISO-8601 time.');
        const result = since
          ? await services.webhookEvents.redeliverSince(opts.customer, id, since)
          : await services.webhookEvents.redeliverEvent(opts.customer, opts.event ?? '', id);
        output(cli, opts, result, () => `Scheduled ${result.scheduled} deliveries.`);
      }),
    );
}
