import type { ProviderEndStatus } from '../provider/index.ts';

/**
 * Test numbers, after Twilio's magic numbers: the last four digits of the destination choose the
 * outcome of a simulated outbound call. Any other number gets a realistic random outcome.
 */
export const MAGIC_SUFFIXES: Record<string, Outcome> = {
  '0191': 'busy',
  '0192': 'no_answer',
  '0193': 'failed',
  '0194': 'long',
  '0195': 'canceled',
  '0199': 'completed',
};

export type Outcome = ProviderEndStatus | 'long' | 'voicemail';

/**
 * Test mode's numbers (docs/test-mode.md): a US number of the fictional 555-0100–0199 block, by its last two
 * digits. What they do to the placement itself (`refused`) happens before any call exists; the rest are the call's
 * outcome. Every other number completes, so a test call's outcome is always the one asked for.
 */
export const TEST_NUMBERS: Record<
  string,
  { outcome: Outcome; settleSeconds?: number } | { refused: 'unavailable' | 'busy' }
> = {
  '90': { refused: 'busy' },
  '91': { outcome: 'busy' },
  '92': { outcome: 'no_answer' },
  '93': { outcome: 'failed' },
  '95': { outcome: 'canceled' },
  '96': { outcome: 'voicemail' },
  '97': { outcome: 'completed', settleSeconds: 60 },
  '98': { refused: 'unavailable' },
  '99': { outcome: 'completed' },
};
const TEST_NUMBER_RE = /^\+1[2-9]\d{2}55501(\d{2})$/;

/** What a test-mode number asks for (a completed call unless it is one of TEST_NUMBERS). */
export function testNumber(
  to: string,
): { outcome: Outcome; settleSeconds?: number } | { refused: 'unavailable' | 'busy' } {
  const suffix = TEST_NUMBER_RE.exec(to)?.[1];
  return (suffix && TEST_NUMBERS[suffix]) || { outcome: 'completed' };
}

/** How long a simulated phone rings before nobody answers. */
export const NO_ANSWER_AFTER_SECONDS = 30;

export type Step =
  | { afterSeconds: number; kind: 'inbound' | 'ringing' | 'answered' }
  | { afterSeconds: number; kind: 'ended'; status: ProviderEndStatus; disconnectReason: string };

export function outboundOutcome(to: string, random: () => number): Outcome {
  const magic = MAGIC_SUFFIXES[to.slice(-4)];
  if (magic) return magic;
  const roll = random();
  if (roll < 0.8) return 'completed';
  if (roll < 0.89) return 'no_answer';
  if (roll < 0.95) return 'busy';
  if (roll < 0.99) return 'failed';
  return 'canceled';
}

/**
 * The timeline of a call, relative to its placement. `talkSeconds` and `talkReason` come from the
 * conversation script and apply once the call is answered.
 */
export function planSteps(options: {
  direction: 'inbound' | 'outbound';
  outcome: Outcome;
  random: () => number;
  talkSeconds: number;
  talkReason: string;
}): Step[] {
  const { outcome, random } = options;
  const ended = (afterSeconds: number, status: ProviderEndStatus, disconnectReason: string): Step => ({
    afterSeconds,
    kind: 'ended',
    status,
    disconnectReason,
  });
  if (options.direction === 'inbound') {
    const ring = 1 + Math.floor(random() * 3);
    if (outcome === 'canceled')
      return [{ afterSeconds: 0, kind: 'inbound' }, ended(ring, 'canceled', 'caller_hangup')];
    return [
      { afterSeconds: 0, kind: 'inbound' },
      { afterSeconds: ring, kind: 'answered' },
      ended(ring + options.talkSeconds, 'completed', options.talkReason),
    ];
  }
  switch (outcome) {
    case 'voicemail':
      return [
        { afterSeconds: 1, kind: 'ringing' },
        { afterSeconds: 4, kind: 'answered' },
        ended(4 + options.talkSeconds, 'completed', 'voicemail'),
      ];
    case 'busy':
      return [ended(2, 'busy', 'busy')];
    case 'failed':
      return [ended(1, 'failed', 'carrier_error')];
    case 'canceled':
      return [ended(1, 'canceled', 'canceled_upstream')];
    case 'no_answer':
      return [
        { afterSeconds: 1, kind: 'ringing' },
        ended(1 + NO_ANSWER_AFTER_SECONDS, 'no_answer', 'no_answer'),
      ];
    default: {
      const answerAt = 1 + 3 + Math.floor(random() * 10);
      return [
        { afterSeconds: 1, kind: 'ringing' },
        { afterSeconds: answerAt, kind: 'answered' },
        ended(answerAt + options.talkSeconds, 'completed', options.talkReason),
      ];
    }
  }
}
