import type { Command } from 'commander';
import { type Cli, output } from './context.ts';

export function registerCallCommands(program: Command, cli: Cli): void {
  const calls = program
    .command('calls')
    .description('Simulate calls; show or rotate callback signing secrets');

  calls
    .command('simulate-inbound')
    .description(
      'Simulate inbound calls to a customer’s assistants through the built-in provider; they are recorded ' +
        'finished (events, insights and transcripts included), spread over the last minutes',
    )
    .requiredOption('--customer <customerId>')
    .option(
      '--assistant <assistantId>',
      'only this assistant (default: all active ones with a number, in turn)',
    )
    // MAX_SIMULATED_CALLS, written out: importing the demo module would slow every CLI start (the test checks it).
    .option('--count <n>', 'how many calls, 1 to 500', '1')
    .option('--json', 'print JSON')
    .action((opts: { customer: string; assistant?: string; count: string; json?: boolean }) =>
      cli.withRuntime(async ({ database, clock }) => {
        const { simulateInboundCalls } = await import('../demo/index.ts');
        const made = await simulateInboundCalls(database.db, {
          customerId: opts.customer,
          ...(opts.assistant ? { assistantId: opts.assistant } : {}),
          count: /^\d+$/.test(opts.count) ? Number(opts.count) : Number.NaN,
          now: clock.now(),
        });
        output(cli, opts, made, () =>
          made
            .map((c) => `${c.id}  ${c.started_at}  ${c.status.padEnd(9)}  from ${c.from_number}`)
            .join('\n'),
        );
      }),
    );

  calls
    .command('callback-secret')
    .description('Show the secret that signs a customer’s callback_url notifications (whsec_…), or rotate it')
    .argument('<customerId>')
    .option('--rotate', 'replace it; notifications sent from now on are signed with the new one')
    .option('--json', 'print JSON')
    .action((customerId: string, opts: { rotate?: boolean; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        await services.customers.getCustomer(customerId);
        const s = opts.rotate
          ? await services.callbackSecrets.rotate(customerId)
          : await services.callbackSecrets.secretFor(customerId);
        output(cli, opts, { customer_id: customerId, ...s }, () => `${s.secret}  (version ${s.version})`);
      }),
    );
}
