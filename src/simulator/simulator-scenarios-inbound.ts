import { insights, type Scenario } from './simulator-scenarios.ts';

export const INBOUND_SCENARIOS: Scenario[] = [
  {
    direction: 'inbound',
    language: 'en',
    turns: [
      ['agent', 'Thanks for calling. How can I help you today?'],
      ['user', 'Hi, I would like to book a cleaning.'],
      ['agent', 'Sure. I have Tuesday at 10 am or Wednesday at 2 pm. Which do you prefer?'],
      ['user', 'Tuesday at 10 works for me.'],
      ['agent', 'Booked for Tuesday at 10 am. May I have your name?'],
      ['user', 'Maria Garcia.'],
      ['agent', 'Thank you Maria, see you on Tuesday. Goodbye!'],
    ],
    endedBy: 'agent',
    summary: 'The caller booked a cleaning for Tuesday at 10 am.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'positive',
        base: 85,
        topics: ['booking'],
        booked: 'Tuesday 10:00',
      }),
  },
  {
    direction: 'inbound',
    language: 'en',
    turns: [
      ['agent', 'Thanks for calling. How can I help you today?'],
      ['user', 'What are your opening hours on Saturday?'],
      ['agent', 'On Saturdays we are open from 9 am to 1 pm.'],
      ['user', 'Perfect, thank you. Bye.'],
    ],
    endedBy: 'user',
    summary: 'The caller asked about Saturday opening hours and got the answer.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'positive',
        base: 80,
        topics: ['opening_hours'],
        booked: null,
      }),
  },
  {
    direction: 'inbound',
    language: 'en',
    turns: [
      ['agent', 'Thanks for calling. How can I help you today?'],
      ['user', 'I was charged twice for my last visit and I am not happy about it.'],
      [
        'agent',
        'I am sorry about that. I have opened a ticket and our billing team will call you back today.',
      ],
      ['user', 'Fine. Make sure they do.'],
      ['agent', 'They will. Thank you for your patience. Goodbye.'],
    ],
    endedBy: 'agent',
    summary: 'The caller reported a double charge; the assistant opened a billing ticket for a call-back.',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'negative',
        base: 60,
        topics: ['billing', 'complaint'],
        booked: null,
      }),
  },
  {
    direction: 'inbound',
    language: 'fr',
    turns: [
      ['agent', 'Merci de votre appel. Comment puis-je vous aider ?'],
      ['user', 'Bonjour, je voudrais prendre rendez-vous pour un détartrage.'],
      ['agent', 'Bien sûr. Mardi à 10 h ou mercredi à 14 h ?'],
      ['user', 'Mardi à 10 h, parfait.'],
      ['agent', 'C’est noté pour mardi à 10 h. Au revoir !'],
    ],
    endedBy: 'agent',
    summary: 'The caller booked a cleaning for Tuesday at 10 am (in French).',
    insights: (r) =>
      insights(r, {
        success: true,
        sentiment: 'positive',
        base: 84,
        topics: ['booking'],
        booked: 'mardi 10:00',
      }),
  },
];
