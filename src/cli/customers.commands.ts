import type { Command } from 'commander';
import { type Cli, output } from './context.ts';

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
          () => `Created customer ${customer.id} (${customer.name}), ${customer.rate_limit_per_minute}/min`,
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
          () => list.map((c) => `${c.id}  ${c.rate_limit_per_minute}/min  ${c.name}`).join('\n') || '(none)',
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
}
