import type { Command } from 'commander';
import { VOICE_IDS } from '../assistants/voices.ts';
import { csv, output, withRuntime } from './context.ts';

export function registerAssistantCommands(program: Command): void {
  const assistants = program.command('assistants').description('Create assistants');
  assistants
    .command('create')
    .description('Create an assistant for a customer')
    .requiredOption('--customer <customerId>')
    .requiredOption('--name <name>')
    .requiredOption('--voice <voiceId>', `one of ${VOICE_IDS.join(', ')}`)
    .option('--description <text>', 'description', '')
    .option('--language <locale>', 'locale tag', 'en-US')
    .option('--phone-numbers <list>', 'comma-separated E.164 numbers')
    .option('--inactive', 'create it inactive')
    .option('--json', 'print JSON')
    .action(
      (opts: {
        customer: string;
        name: string;
        voice: string;
        description: string;
        language: string;
        phoneNumbers?: string;
        inactive?: boolean;
        json?: boolean;
      }) =>
        withRuntime(async ({ services }) => {
          const a = await services.assistants.createAssistant({
            customerId: opts.customer,
            name: opts.name,
            voiceId: opts.voice,
            description: opts.description,
            language: opts.language,
            phoneNumbers: csv(opts.phoneNumbers ?? ''),
            isActive: !opts.inactive,
          });
          output(opts, a, () => `Created assistant ${a.id} (${a.name})`);
        }),
    );
}
