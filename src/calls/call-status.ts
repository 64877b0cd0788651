/**
 * Call statuses and the transitions between them (spec 3.1 leaves them open).
 *
 *   queued ──► ringing ──► in_progress ──► completed
 *     │           │              └──────► failed
 *     │           ├──► no_answer | busy | failed | canceled
 *     └──► in_progress | no_answer | busy | failed | canceled
 *
 * Inbound calls start at `ringing`. Terminal statuses never change again, so a duplicate or
 * late provider event is ignored rather than moving a call backwards.
 */
export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in_progress',
  'completed',
  'no_answer',
  'busy',
  'failed',
  'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const TERMINAL_STATUSES: readonly CallStatus[] = [
  'completed',
  'no_answer',
  'busy',
  'failed',
  'canceled',
];

const NEXT: Record<CallStatus, readonly CallStatus[]> = {
  queued: ['ringing', 'in_progress', 'no_answer', 'busy', 'failed', 'canceled'],
  ringing: ['in_progress', 'no_answer', 'busy', 'failed', 'canceled'],
  in_progress: ['completed', 'failed'],
  completed: [],
  no_answer: [],
  busy: [],
  failed: [],
  canceled: [],
};

export const isCallStatus = (s: string): s is CallStatus => (CALL_STATUSES as readonly string[]).includes(s);

export const isTerminal = (s: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(s);

export function canTransition(from: string, to: CallStatus): boolean {
  return isCallStatus(from) && NEXT[from].includes(to);
}
