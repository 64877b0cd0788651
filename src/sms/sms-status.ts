import type { SmsStatus } from '../db/index.ts';
import type { SmsDeliveryStatus } from './sms-provider.ts';

export const FINAL_STATUSES: readonly SmsStatus[] = ['delivered', 'undelivered', 'failed', 'received'];
export const isFinal = (s: SmsStatus): boolean => FINAL_STATUSES.includes(s);

const RANK: Record<SmsDeliveryStatus, number> = {
  queued: 0,
  sending: 1,
  sent: 2,
  delivered: 3,
  undelivered: 3,
  failed: 3,
};

/**
 * What a provider's report does to a message. Reports arrive late, twice and out of order: a message only moves
 * forward (queued → sending → sent → a final status), and its final status never changes. A report of a step the
 * message already passed is still history (it happened), unless it is a second final status.
 */
export function applyReport(
  current: SmsStatus,
  reported: SmsDeliveryStatus,
): { moves: boolean; history: boolean } {
  if (current === 'received') return { moves: false, history: false };
  if (isFinal(current)) return { moves: false, history: !isFinal(reported) };
  const moves = RANK[reported] > RANK[current as SmsDeliveryStatus];
  return { moves, history: true };
}
