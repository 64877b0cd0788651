import type { ProviderInsight, ProviderTurn } from '../provider/index.ts';

export type Scenario = {
  direction: 'inbound' | 'outbound';
  language: 'en' | 'fr';
  turns: [ProviderTurn['role'], string][];
  endedBy: 'agent' | 'user';
  summary: string;
  insights(random: () => number): ProviderInsight[];
};

const score = (random: () => number, base: number) => Math.min(100, base + Math.floor(random() * 15));

/** Insight results of several types (boolean, string, number, array, object): receivers branch on name. */
export const insights = (
  random: () => number,
  o: { success: boolean; sentiment: string; base: number; topics: string[]; booked: string | null },
): ProviderInsight[] => [
  { name: 'call_successful', result: o.success },
  { name: 'sentiment', result: o.sentiment },
  { name: 'quality_score', result: score(random, o.base) },
  { name: 'topics', result: o.topics },
  { name: 'appointment', result: { booked: o.booked !== null, slot: o.booked } },
];

const OPENING =
  'Hi {first_name}, this is the virtual assistant calling to confirm your appointment {appointment_time}.';

export const OUTBOUND_SCENARIOS: Scenario[] = [
  {
    direction: 'outbound',
    language: 'en',
    turns: [
      ['agent', `${OPENING} Does that still work for you?`],
      ['user', 'Yes, that works. Thanks for the reminder.'],
      ['agent', 'Great, you are all set. Is there anything else I can help with?'],
      ['user', 'No, that is all.'],
      ['agent', 'Have a good day. Goodbye!'],
    ],
    endedBy: 'agent',
    summary: 'The assistant confirmed the appointment and the person accepted.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'positive',
        base: 82,
        topics: ['confirmation'],
        booked: 'as planned',
      }),
  },
  {
    direction: 'outbound',
    language: 'en',
    turns: [
      ['agent', `${OPENING} Does that still work for you?`],
      ['user', 'Actually no. Could we move it to Thursday afternoon?'],
      ['agent', 'Thursday at 3 pm is available. Shall I book that for you?'],
      ['user', 'Yes please.'],
      ['agent', 'Done: Thursday at 3 pm. You will get a text message shortly. Goodbye!'],
    ],
    endedBy: 'agent',
    summary: 'The person could not make it; the assistant moved the appointment to Thursday at 3 pm.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'neutral',
        base: 74,
        topics: ['reschedule'],
        booked: 'Thursday 15:00',
      }),
  },
  {
    direction: 'outbound',
    language: 'en',
    turns: [
      ['agent', `${OPENING}`],
      ['user', 'Sorry, I am driving right now. Please call back later.'],
      ['agent', 'No problem, we will call you back tomorrow.'],
    ],
    endedBy: 'user',
    summary: 'The person was busy and asked to be called back; nothing was confirmed.',
    insights: (r) =>
      insights(r, {
        success: false,
        sentiment: 'neutral',
        base: 55,
        topics: ['callback_requested'],
        booked: null,
      }),
  },
  {
    direction: 'outbound',
    language: 'fr',
    turns: [
      [
        'agent',
        'Bonjour {first_name}, ici l’assistant virtuel. Je vous appelle pour confirmer votre rendez-vous.',
      ],
      ['user', 'Oui, c’est toujours bon pour moi.'],
      ['agent', 'Parfait, à bientôt. Au revoir !'],
    ],
    endedBy: 'agent',
    summary: 'The assistant confirmed the appointment (in French) and the person accepted.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'positive',
        base: 82,
        topics: ['confirmation'],
        booked: 'as planned',
      }),
  },
];
