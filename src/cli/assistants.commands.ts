import type { Command } from 'commander';
import { VOICE_IDS } from '../assistants/voices.ts';
import type { AgentTelephony } from '../db/index.ts';
import { invalidInput } from '../errors/index.ts';
import { type Cli, csv, output } from './context.ts';

export function registerAssistantCommands(program: Command, cli: Cli): void {
  const assistants = program.command('assistants').description('Create, list and link assistants');
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
          () =>
            `Linked assistant ${link.assistantId} to agent ${link.agentId} (${numbers.length} number${numbers.length === 1 ? '' : 's'}), ${
              link.checked
                ? 'checked with ElevenLabs'
                : 'not checked: PROVIDER is not elevenlabs here; `provider check` checks it once it is'
            }`,
        );
      }),
    );
  assistants
    .command('list')
    .description("List a customer's assistants, their numbers and their ElevenLabs links")
    .requiredOption('--customer <customerId>')
    .option('--json', 'print JSON')
    .action((opts: { customer: string; json?: boolean }) =>
      cli.withRuntime(async ({ services }) => {
        const rows = [];
        let cursor: string | undefined;
        do {
          const page = await services.assistants.listAssistants(opts.customer, {
            limit: 100,
            ...(cursor ? { cursor } : {}),
          });
          rows.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        const links = await services.agentLinks.agentLinks(rows.map((a) => a.id));
        const listing = rows.map((a) => {
          const link = links.get(a.id);
          return {
            id: a.id,
            name: a.name,
            is_active: a.is_active,
            agent_id: link?.agentId ?? null,
            phone_numbers: a.phone_numbers.map((e164) => ({
              number: e164,
              phone_number_id: link?.phoneNumbers[e164]?.id ?? null,
              telephony: link?.phoneNumbers[e164]?.telephony ?? null,
            })),
          };
        });
        output(cli, opts, listing, () =>
          listing.length === 0
            ? `Customer ${opts.customer} has no assistants.`
            : listing
                .map((a) =>
                  [
                    `${a.id}  ${a.name}${a.is_active ? '' : ' (inactive)'}  ${a.agent_id ? `agent ${a.agent_id}` : 'not linked'}`,
                    ...a.phone_numbers.map(
                      (n) =>
                        `    ${n.number}  ${n.phone_number_id ? `${n.phone_number_id} (${n.telephony})` : 'not linked'}`,
                    ),
                  ].join('\n'),
                )
                .join('\n'),
        );
      }),
    );
}
