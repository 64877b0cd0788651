import type { Command } from 'commander';
import { invalidInput } from '../errors/index.ts';
import { zodIssues } from '../http/index.ts';
import { sendSmsBody } from '../sms/index.ts';
import { type Cli, output } from './context.ts';

export function registerSmsCommands(program: Command, cli: Cli): void {
  const sms = program
    .command('sms')
    .description('Text messages: which numbers can text, sending, simulated replies');

  sms
    .command('numbers')
    .description(
      "Which numbers can text: SMS_PROVIDER=twilio, the account's numbers and whether each is SMS-capable; the " +
        "simulator, every assistant's numbers",
    )
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const { twilio } = services;
        if (!twilio) {
          const numbers = await services.sms.simulatedNumbers();
          output(cli, opts, { provider: 'simulator', numbers }, () =>
            numbers.length === 0
              ? 'No assistant has a number yet.'
              : numbers
                  .map((n) => `${n.number}  can text (simulator)  assistant ${n.assistantId}`)
                  .join('\n'),
          );
          return;
        }
        const listed = await twilio.numbers();
        if (!listed.ok) {
          cli.io.err(`Twilio did not list the account's numbers: ${listed.error.detail}\n`);
          cli.io.exitCode = 1;
          return;
        }
        output(cli, opts, { provider: 'twilio', numbers: listed.value }, () =>
          listed.value.length === 0
            ? 'The Twilio account has no phone numbers.'
            : listed.value
                .map(
                  (n) =>
                    `${n.number}  ${n.sms ? 'can text' : 'cannot text (no SMS capability)'}  ${n.friendlyName}`,
                )
                .join('\n'),
        );
      }),
    );

  sms
    .command('send')
    .description(
      "Send a text message as a customer's API key would (its scope, allowlist and daily spend cap apply; the message " +
        'is filed under its customer and mode)',
    )
    .requiredOption('--key <keyId>', 'the id of the API key to act as (needs scope send_sms)')
    .requiredOption('--assistant <assistantId>')
    .requiredOption('--to <number>', 'E.164 recipient')
    .requiredOption('--body <text>')
    .option('--from <number>', "one of the assistant's numbers (default: its first)")
    .option('--json', 'print JSON')
    .action(
      (opts: { key: string; assistant: string; to: string; body: string; from?: string; json?: boolean }) =>
        cli.withRuntime(async ({ services }) => {
          const principal = await services.authenticator.actAs(opts.key);
          if ('code' in principal) {
            cli.io.err(`${principal.code}: ${principal.detail}\n`);
            cli.io.exitCode = 1;
            return;
          }
          if (!principal.scopes.includes('send_sms')) {
            cli.io.err('perm.denied: this API key does not have the send_sms scope.\n');
            cli.io.exitCode = 1;
            return;
          }
          // The API's own body schema: the same checks of the numbers and the text as POST /sms/send.
          const body = sendSmsBody.safeParse({
            assistant_id: opts.assistant,
            to_number: opts.to,
            body: opts.body,
            ...(opts.from ? { from_number: opts.from } : {}),
          });
          if (!body.success) throw invalidInput(zodIssues(body.error, 'options'));
          const sent = await services.sms.send(principal, body.data, null);
          output(
            cli,
            opts,
            sent.body,
            () =>
              `${sent.body.id}  ${sent.body.status}  ${sent.body.from_number} → ${sent.body.to_number}  ` +
              `${sent.body.segments} segment(s), ${sent.body.encoding}, estimate $${sent.body.cost}`,
          );
        }),
    );

  sms
    .command('simulate-inbound')
    .description(
      "Someone texts one of the assistants' numbers (the simulator; with SMS_PROVIDER=twilio, text the number for " +
        'real): recorded as received, sms.received to the subscriptions; STOP and START opt the sender out and in',
    )
    .requiredOption('--to <number>', "an assistant's number")
    .requiredOption('--body <text>')
    .option('--from <number>', 'who texts', '+14155550123')
    .option('--json', 'print JSON')
    .action((opts: { to: string; from: string; body: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const received = await services.sms.simulateInbound({
          to: opts.to,
          from: opts.from,
          body: opts.body,
        });
        if (!received) {
          cli.io.err(`No assistant has the number ${opts.to}: the message was dropped.\n`);
          cli.io.exitCode = 1;
          return;
        }
        output(cli, opts, received, () => `${received.messageId}  received  ${opts.from} → ${opts.to}`);
      }),
    );
}
