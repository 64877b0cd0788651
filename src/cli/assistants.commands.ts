import type { Command } from 'commander';
import { VOICE_IDS } from '../assistants/voices.ts';
import type { AgentTelephony } from '../db/index.ts';
import { invalidInput } from '../errors/index.ts';
import { type Cli, csv, output } from './context.ts';

export function registerAssistantCommands(program: Command, cli: Cli): void {
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
        cli.withRuntime(async ({ services }) => {
          const a = await services.assistants.createAssistant({
            customerId: opts.customer,
            name: opts.name,
            voiceId: opts.voice,
            description: opts.description,
            language: opts.language,
            phoneNumbers: csv(opts.phoneNumbers ?? ''),
            isActive: !opts.inactive,
          });
          output(cli, opts, a, () => `Created assistant ${a.id} (${a.name})`);
        }),
    );
  assistants
    .command('link <assistantId>')
    .description(
      'Link an assistant to its ElevenLabs agent and its numbers to the agent phone numbers (PROVIDER=elevenlabs)',
    )
    .requiredOption('--agent-id <agentId>', 'the ElevenLabs agent (agent_…)')
    .requiredOption(
      '--phone-number-id <list>',
      'comma-separated +E164=phnum_… pairs; add :sip_trunk after an id connected by SIP trunk (default twilio)',
    )
    .option('--json', 'print JSON')
    .action((assistantId: string, opts: { agentId: string; phoneNumberId: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const numbers = csv(opts.phoneNumberId).map((pair) => {
          const [e164 = '', target = ''] = pair.split('=');
          const [phoneNumberId = '', kind = 'twilio'] = target.split(':');
          if (kind !== 'twilio' && kind !== 'sip_trunk') {
            throw invalidInput([
              { path: ['phone_number_id'], message: `Unknown telephony "${kind}" in ${pair}.` },
            ]);
          }
          const telephony: AgentTelephony = kind === 'sip_trunk' ? 'sip_trunk' : 'twilio';
          return { e164: e164.trim(), phoneNumberId, telephony };
        });
        const link = await services.agentLinks.linkAgent({ assistantId, agentId: opts.agentId, numbers });
        output(
          cli,
          opts,
          link,
          () => `Linked assistant ${link.assistantId} to agent ${link.agentId} (${numbers.length} numbers)`,
        );
      }),
    );
}
