import type { Command } from 'commander';
import { type Cli, output } from './context.ts';

export function registerProviderCommands(program: Command, cli: Cli): void {
  const provider = program.command('provider').description('The upstream voice provider');
  provider
    .command('check')
    .description(
      'PROVIDER=elevenlabs: check the API key, the webhook secret and every assistant link with ElevenLabs',
    )
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const { elevenlabs } = services;
        if (!elevenlabs) {
          cli.io.err('PROVIDER is not elevenlabs in this environment: there is no provider to check.\n');
          cli.io.exitCode = 1;
          return;
        }
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
