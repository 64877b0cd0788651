import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { AssistantInfo, Check } from '../outbound/index.ts';
import { assistantCheck, failed, pass } from '../outbound/index.ts';
import { MAX_SEGMENTS, type MeasuredBody } from './segments.ts';

export type SmsCheckName =
  | 'body'
  | 'assistant'
  | 'sender'
  | 'number_type'
  | 'country'
  | 'reachable'
  | 'opt_out'
  | 'spend_cap';
export type SmsCheck = Check<SmsCheckName>;

export function bodyCheck(body: string, measured: MeasuredBody): SmsCheck {
  if (body.trim() === '') return failed('body', 'sms.body_empty', 'The message has no text.');
  if (measured.segments > MAX_SEGMENTS)
    return failed(
      'body',
      'sms.body_too_long',
      `The message is ${measured.segments} segments long (${measured.characters} ${measured.encoding} characters); ` +
        `at most ${MAX_SEGMENTS} are sent (${MAX_SEGMENTS * (measured.encoding === 'GSM-7' ? 153 : 67)} characters in ${measured.encoding}).`,
    );
  return pass('body');
}

/** The assistant's checks as for a call, then the sender: one of its numbers, its first unless one is named. */
export function senderChecks(
  assistant: AssistantInfo | undefined,
  accountId: string,
  fromNumber: string | undefined,
): { checks: SmsCheck[]; from: string | null } {
  const owned = { ...assistantCheck(assistant, accountId) } as SmsCheck;
  if (!owned.passed || !assistant) return { checks: [owned], from: null };
  const from = fromNumber ?? assistant.phone_numbers[0] ?? null;
  if (!from || !assistant.phone_numbers.includes(from))
    return {
      checks: [
        owned,
        failed(
          'sender',
          'sms.sender_unavailable',
          `${fromNumber} is not one of the assistant's numbers (${assistant.phone_numbers.join(', ')}).`,
        ),
      ],
      from: null,
    };
  return { checks: [owned, pass('sender')], from };
}

/**
 * A number that cannot take a text: a landline (libphonenumber's FIXED_LINE; a number that may be either, as most
 * US ones, passes and the carrier decides).
 */
export function reachableCheck(toNumber: string): SmsCheck {
  const type = parsePhoneNumberFromString(toNumber)?.getType();
  return type === 'FIXED_LINE'
    ? failed(
        'reachable',
        'sms.number_unreachable',
        `${toNumber} is a landline number and cannot receive text messages.`,
      )
    : pass('reachable');
}

export function optOutCheck(optedOut: boolean, from: string | null, to: string): SmsCheck {
  return optedOut
    ? failed(
        'opt_out',
        'sms.recipient_opted_out',
        `${to} replied STOP to ${from}: nothing more is sent to them from this number until they reply START.`,
      )
    : pass('opt_out');
}
