import type { SentSms, SmsDeliveryStatus, SmsStatusReport } from '../sms/index.ts';
import { errorSentence } from './error-codes.ts';
import { codeOf } from './failures.ts';

/**
 * What we take of an answer: the value, and any field we could do without that was missing or odd (`drift`,
 * logged); or, when a field we need is missing or unknown, the problems naming each (`unreadable`).
 */
export type Read<T> = { ok: true; value: T; drift: string[] } | { ok: false; problems: string[] };

/**
 * Twilio's message statuses as ours. `accepted` and `scheduled` (a Messaging Service has the message, not yet
 * queued) are still on their way; `read` (WhatsApp, RCS) is past delivered. Any other is not one we can read.
 */
const STATUSES: ReadonlyMap<string, SmsDeliveryStatus> = new Map([
  ['queued', 'queued'],
  ['sending', 'sending'],
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['undelivered', 'undelivered'],
  ['failed', 'failed'],
  ['accepted', 'queued'],
  ['scheduled', 'queued'],
  ['read', 'delivered'],
]);

type Fields = Record<string, unknown>;
const fieldsOf = (answer: unknown): Fields =>
  typeof answer === 'object' && answer !== null ? (answer as Fields) : {};

const described = (value: unknown): string =>
  value === undefined ? 'missing' : `${JSON.stringify(value) ?? String(value)}, not one we know`;

function sidOf(f: Fields, problems: string[]): string {
  if (typeof f.sid === 'string' && f.sid.length > 0) return f.sid;
  problems.push(`sid: ${described(f.sid)}`);
  return '';
}

function statusOf(f: Fields, problems: string[]): SmsDeliveryStatus {
  const status = typeof f.status === 'string' ? STATUSES.get(f.status) : undefined;
  if (status) return status;
  problems.push(`status: ${described(f.status)}`);
  return 'queued';
}

/** The answer to a send (the SDK's MessageInstance). */
export function readSent(answer: unknown): Read<SentSms> {
  const f = fieldsOf(answer);
  const problems: string[] = [];
  const providerMessageId = sidOf(f, problems);
  const status = statusOf(f, problems);
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, value: { providerMessageId, status }, drift: [] };
}

/**
 * The answer to a fetch of one message. Its time is `date_updated`; an answer without a readable one still says
 * where the message is, so it counts from `now` instead (drift, not a failure).
 */
export function readReport(answer: unknown, now: Date): Read<SmsStatusReport> {
  const f = fieldsOf(answer);
  const problems: string[] = [];
  const drift: string[] = [];
  const providerMessageId = sidOf(f, problems);
  const status = statusOf(f, problems);
  if (problems.length > 0) return { ok: false, problems };
  const errorCode = codeOf(f.errorCode);
  if (errorCode === null && f.errorCode !== null && f.errorCode !== undefined && f.errorCode !== 0) {
    drift.push(`error_code: ${described(f.errorCode)}`);
  }
  let at = f.dateUpdated instanceof Date && !Number.isNaN(f.dateUpdated.getTime()) ? f.dateUpdated : null;
  if (!at) {
    const parsed = typeof f.dateUpdated === 'string' ? Date.parse(f.dateUpdated) : Number.NaN;
    at = Number.isNaN(parsed) ? now : new Date(parsed);
    if (Number.isNaN(parsed)) drift.push(`date_updated: ${described(f.dateUpdated)}`);
  }
  const errorMessage = errorCode ? errorSentence(errorCode) : null;
  return { ok: true, value: { providerMessageId, status, errorCode, errorMessage, at }, drift };
}

export type TwilioAccount = { status: string; friendlyName: string };

/** The account (`GET /Accounts/{sid}.json`): `active`, `suspended` or `closed`. */
export function readAccount(answer: unknown): Read<TwilioAccount> {
  const f = fieldsOf(answer);
  if (typeof f.status !== 'string' || f.status.length === 0) {
    return { ok: false, problems: [`status: ${described(f.status)}`] };
  }
  const friendlyName = typeof f.friendlyName === 'string' ? f.friendlyName : '';
  return { ok: true, value: { status: f.status, friendlyName }, drift: [] };
}

export type TwilioNumber = { number: string; sms: boolean; friendlyName: string };

/** The account's incoming numbers and whether each can text (`capabilities.sms`; `SMS` in older answers). */
export function readNumbers(answer: unknown): Read<TwilioNumber[]> {
  if (!Array.isArray(answer)) return { ok: false, problems: ['incoming_phone_numbers: not a list'] };
  const problems: string[] = [];
  const drift: string[] = [];
  const numbers = answer.map((item, i): TwilioNumber => {
    const f = fieldsOf(item);
    if (typeof f.phoneNumber !== 'string' || f.phoneNumber.length === 0) {
      problems.push(`incoming_phone_numbers[${i}].phone_number: ${described(f.phoneNumber)}`);
    }
    const capabilities = fieldsOf(f.capabilities);
    const sms = capabilities.sms ?? capabilities.SMS;
    if (typeof sms !== 'boolean')
      drift.push(`incoming_phone_numbers[${i}].capabilities.sms: ${described(sms)}`);
    return {
      number: typeof f.phoneNumber === 'string' ? f.phoneNumber : '',
      sms: sms === true,
      friendlyName: typeof f.friendlyName === 'string' ? f.friendlyName : '',
    };
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: numbers, drift };
}
