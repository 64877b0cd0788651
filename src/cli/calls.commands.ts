import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { invalidInput } from '../errors/index.ts';
import { zodIssues } from '../http/index.ts';
import { type Cli, output } from './context.ts';

export function registerCallCommands(program: Command, cli: Cli): void {
  const calls = program
    .command('calls')
    .description('Simulate calls; export them; show or rotate callback signing secrets');

  calls
    .command('export')
    .description(
      "Write a customer's calls to a file as CSV or NDJSON, as GET /calls/export streams them (the same filters, " +
        'newest first, flat memory)',
    )
    .requiredOption('--customer <customerId>')
    .requiredOption('--out <file>', 'where to write (relative to the current folder); replaced if it exists')
    .option('--format <format>', 'csv or ndjson', 'csv')
    .option('--include <columns>', 'optional columns: transcript, insights (comma-separated)')
    .option(
      '--filters <query>',
      'the filters of GET /calls as a query string, e.g. "status=completed&direction=inbound"',
    )
    .option('--json', 'print JSON')
    .action(
      (opts: {
        customer: string;
        out: string;
        format: string;
        include?: string;
        filters?: string;
        json?: boolean;
      }) =>
        cli.withRuntime(async ({ services }) => {
          const { exportQuery } = await import('../call-export/index.ts');
          const params = Object.fromEntries(new URLSearchParams(opts.filters ?? ''));
          const parsed = exportQuery.safeParse({
            ...params,
            format: opts.format,
            ...(opts.include ? { include: opts.include } : {}),
          });
          if (!parsed.success) throw invalidInput(zodIssues(parsed.error, 'options'));
          await services.customers.getCustomer(opts.customer);
          const file = path.resolve(cli.cwd, opts.out);
          const format = parsed.data.format ?? 'csv';
          const started = Date.now();
          let bytes = 0;
          let calls = 0;
          const chunks = services.callExport.stream(
            opts.customer,
            parsed.data,
            format,
            new AbortController().signal,
            (n) => {
              calls += n;
            },
          );
          await pipeline(
            (async function* () {
              for await (const chunk of chunks) {
                bytes += Buffer.byteLength(chunk);
                yield chunk;
              }
            })(),
            fs.createWriteStream(file, { mode: 0o600 }),
          );
          const summary = { file, format, calls, bytes, seconds: (Date.now() - started) / 1000 };
          output(
            cli,
            opts,
            summary,
            () => `${calls} calls written to ${file} (${bytes} bytes, ${summary.seconds} s)`,
          );
        }),
    );

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
