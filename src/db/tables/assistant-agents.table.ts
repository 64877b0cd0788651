import type { ColumnType, Selectable } from 'kysely';

export type AgentTelephony = 'twilio' | 'sip_trunk';
/** E.164 number → the provider's id of it and how it is connected. */
export type AgentPhoneNumbers = Record<string, { id: string; telephony: AgentTelephony }>;

/** An assistant's link to its upstream agent (ElevenLabs). */
export interface AssistantAgentsTable {
  assistant_id: string;
  agent_id: string;
  phone_numbers: ColumnType<AgentPhoneNumbers, string, string>;
  updated_at: Date;
}
export type AssistantAgentRow = Selectable<AssistantAgentsTable>;
