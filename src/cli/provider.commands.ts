import type { Command } from 'commander';
import { type Cli, output } from './context.ts';

export function registerProviderCommands(program: Command, cli: Cli): void {
  const provider = program.command('provider').description('The upstream voice provider');
  provider
    .command('check')
    .description(
      'PROVIDER=elevenlabs: check the API key, the webhook secret and every assistant link with ElevenLabs; ' +
        'SMS_PROVIDER=twilio: check the account and which of its numbers can text',
    )
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const { elevenlabs, twilio } = services;
        if (!elevenlabs && !twilio) {
          cli.io.err(
            'PROVIDER is not elevenlabs and SMS_PROVIDER is not twilio in this environment: there is no provider to check.\n',
          );
          cli.io.exitCode = 1;
          return;
        }
        if (twilio) {
          const check = await twilio.check();
          output(cli, opts, { twilio: check }, () =>
            [
              check.state === 'ok'
                ? `✓ Twilio answers the account's credentials${check.detail ? ` (${check.detail})` : ''}`
                : `✗ Twilio: ${check.state}${check.detail ? `: ${check.detail}` : ''}`,
              check.smsNumbers.length > 0
                ? `  numbers that can text: ${check.smsNumbers.join(', ')}`
                : '  no number of the account can text',
            ].join('\n'),
          );
          if (check.state !== 'ok') cli.io.exitCode = 1;
        }
        if (!elevenlabs) return;
        const report = await elevenlabs.checkSetup();
        const wrong =
          (report.key ? 1 : 0) +
          (report.webhookSecret ? 1 : 0) +
          report.links.reduce((n, l) => n + l.problems.length, 0);
        output(cli, opts, { ...report, problems: wrong }, () =>
          [
            report.key ? `✗ API key: ${report.key}` : `✓ API key: ElevenLabs answers at ${report.baseUrl}`,
            report.webhookSecret
              ? `✗ webhook secret: ${report.webhookSecret}`
              : '✓ webhook secret: well formed',
            ...(report.key
              ? ['  links: not checked until the key works']
              : report.links.length === 0
                ? ['  links: no assistant is linked yet (assistants link)']
                : report.links.flatMap((l) =>
                    l.problems.length === 0
                      ? [`✓ assistant ${l.assistantId} → agent ${l.agentId}`]
                      : [
                          `✗ assistant ${l.assistantId} → agent ${l.agentId}:`,
                          ...l.problems.map((p) => `    ${p.message}`),
                        ],
                  )),
            wrong === 0 ? 'All is well.' : `${wrong} problem${wrong === 1 ? '' : 's'} found.`,
          ].join('\n'),
        );
        if (wrong > 0) cli.io.exitCode = 1;
      }),
    );
}
