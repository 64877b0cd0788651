import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ConversationDetails, ProviderTurn } from '../provider/index.ts';
import { rng } from '../provider/index.ts';
import { OUTBOUND_SCENARIOS, type Scenario } from './simulator-scenarios.ts';
import { INBOUND_SCENARIOS } from './simulator-scenarios-inbound.ts';

const SCENARIOS = [...OUTBOUND_SCENARIOS, ...INBOUND_SCENARIOS];

export type ScriptInput = {
  direction: 'inbound' | 'outbound' | null;
  language: string;
  variables: Record<string, string | number | boolean>;
  /** The provider's hang-up length; a `long` script talks past it and is cut there. */
  maxDurationSeconds: number;
  long: boolean;
  /** Nobody answers but the voicemail: the agent leaves its opening lines (a test number). */
  voicemail?: boolean;
  /** How long the transcript settles after the call, instead of PROVIDER_SETTLE_SECONDS (a test number). */
  settleSeconds?: number;
};

export type Script = { turns: ProviderTurn[]; details: ConversationDetails; disconnectReason: string };

export const seedOf = (s: string): number => crc32(s);

const MAX_DURATION_SECONDS = 600;
const FLAVOURS = [
  ['inbound', 'en'],
  ['outbound', 'en'],
  ['inbound', 'fr'],
  ['outbound', 'fr'],
] as const;

/**
 * Conversation ids are `conv_` and 32 hex digits. The last digit records the kind of conversation,
 * so one that has left the simulator's memory (a restart, demo history) reads back the same script.
 */
export function conversationIdFor(direction: 'inbound' | 'outbound', language: string): string {
  const french = language.toLowerCase().startsWith('fr');
  const flavour = FLAVOURS.findIndex(([d, l]) => d === direction && (l === 'fr') === french);
  return `conv_${randomBytes(16).toString('hex').slice(0, 31)}${flavour.toString(16)}`;
}

/** The script input of a conversation the simulator no longer holds, or null when the id is not one of ours. */
export function archivedInput(conversationId: string): ScriptInput | null {
  if (!/^conv_[0-9a-f]{32}$/.test(conversationId)) return null;
  const flavour = FLAVOURS[Number.parseInt(conversationId.slice(-1), 16)];
  return {
    direction: flavour?.[0] ?? null,
    language: flavour?.[1] ?? 'en',
    variables: {},
    maxDurationSeconds: MAX_DURATION_SECONDS,
    long: false,
  };
}

/**
 * What a variable the call did not give reads as, per script language. A missing name is left out ("Bonjour,
 * ici…", "Hi, this is…"): a stand-in word would be a name in the wrong language.
 */
const FALLBACKS: Record<Scenario['language'], Record<string, string>> = {
  en: { appointment_time: 'soon' },
  fr: { appointment_time: 'bientôt' },
};

const fill = (
  text: string,
  vars: Record<string, string | number | boolean>,
  language: Scenario['language'],
) =>
  text.replace(/( ?)\{(\w+)\}/g, (_, space: string, name: string) => {
    const value = vars[name] ?? FALLBACKS[language][name];
    return value === undefined ? '' : `${space}${String(value)}`;
  });

function pickScenario(input: ScriptInput, random: () => number): Scenario {
  const french = input.language.toLowerCase().startsWith('fr');
  const fits = SCENARIOS.filter(
    (s) => (input.direction === null || s.direction === input.direction) && (s.language === 'fr') === french,
  );
  const pool = fits.length > 0 ? fits : SCENARIOS.filter((s) => s.language === 'en');
  return pool[Math.floor(random() * pool.length)] ?? (SCENARIOS[0] as Scenario);
}

const FILLER: [ProviderTurn['role'], string][] = [
  ['user', 'Hold on, let me find my calendar, it is somewhere in the other room.'],
  ['agent', 'Of course, take your time. I will wait.'],
];

/**
 * A scripted two-party conversation: a pure function of the conversation id and the inputs, so the
 * same conversation reads the same whenever (and by whichever simulator instance) it is asked for.
 */
export function buildScript(conversationId: string, input: ScriptInput): Script {
  const random = rng(seedOf(conversationId));
  const scenario = pickScenario(input, random);
  let lines = scenario.turns;
  if (input.long) {
    const padding = Array.from({ length: 120 }, (_, i) => FILLER[i % 2] as [ProviderTurn['role'], string]);
    lines = [...lines.slice(0, 2), ...padding, ...lines.slice(2)];
  }
  if (input.voicemail) lines = lines.filter(([role]) => role === 'agent').slice(0, 2);
  const turns: ProviderTurn[] = [];
  let t = 1;
  for (const [role, raw] of lines) {
    if (t >= input.maxDurationSeconds) break;
    const message = fill(raw, input.variables, scenario.language);
    turns.push({ role, message, offsetSeconds: t });
    t +=
      Math.max(2, Math.round(message.split(/\s+/).length * 0.4)) + Math.round(random() * 3 * 10) / 10 + 0.5;
  }
  const natural = Math.ceil(t + 1);
  const cut = natural > input.maxDurationSeconds;
  const durationSeconds = cut ? input.maxDurationSeconds : natural;
  return {
    turns,
    disconnectReason: cut
      ? 'max_duration'
      : scenario.endedBy === 'agent'
        ? 'assistant_hangup'
        : 'caller_hangup',
    details: {
      durationSeconds,
      summary: input.voicemail ? 'Reached voicemail; the assistant left a message.' : scenario.summary,
      insights: input.voicemail ? [] : scenario.insights(random),
      hasTranscript: turns.length > 0,
      recordingAvailable: random() < 0.9,
    },
  };
}
