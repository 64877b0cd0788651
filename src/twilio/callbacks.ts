import { MESSAGE_ID_RE } from '../ids.ts';
import type { InboundSms, SmsDeliveryStatus, SmsStatusReport } from '../sms/index.ts';
import { errorSentence } from './error-codes.ts';
import { codeOf } from './failures.ts';

type Form = Record<string, string>;

/**
 * The statuses a status callback moves a sent message to. Twilio also posts others (`accepted`, `scheduled`,
 * `read`, …; `receiving`/`received` are an inbound message's) that say nothing our messages need.
 */
const REPORTED: ReadonlySet<string> = new Set<SmsDeliveryStatus>([
  'queued',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
]);

export type StatusCallback =
  | { kind: 'report'; report: SmsStatusReport }
  | { kind: 'ignored'; status: string }
  | { kind: 'invalid'; problems: string[] };

const present = (value: string | undefined): value is string => value !== undefined && value.length > 0;

/** A status callback's form (`MessageSid`, `MessageStatus`, `ErrorCode`; the older `Sms…` names as well). */
export function readStatusCallback(form: Form, now: Date, messageId?: unknown): StatusCallback {
  const sid = form.MessageSid ?? form.SmsSid;
  const status = form.MessageStatus ?? form.SmsStatus;
  const problems = [
    ...(present(sid) ? [] : ['MessageSid is missing']),
    ...(present(status) ? [] : ['MessageStatus is missing']),
  ];
  if (!present(sid) || !present(status)) return { kind: 'invalid', problems };
  if (!REPORTED.has(status)) return { kind: 'ignored', status };
  const errorCode = codeOf(form.ErrorCode);
  return {
    kind: 'report',
    report: {
      providerMessageId: sid,
      // Our id, from the status callback URL we gave: finds a message whose send's own answer never came.
      ...(typeof messageId === 'string' && MESSAGE_ID_RE.test(messageId) ? { messageId } : {}),
      status: status as SmsDeliveryStatus,
      errorCode,
      errorMessage: errorCode ? errorSentence(errorCode) : null,
      at: now,
    },
  };
}

/** An inbound message's form (`MessageSid`, `From`, `To`, `Body`; a picture-only message has an empty body). */
export function readInboundCallback(
  form: Form,
  now: Date,
): { ok: true; message: InboundSms } | { ok: false; problems: string[] } {
  const sid = form.MessageSid ?? form.SmsSid;
  const { From: from, To: to } = form;
  if (!present(sid) || !present(from) || !present(to)) {
    const named = { MessageSid: sid, From: from, To: to };
    const problems = Object.entries(named)
      .filter(([, value]) => !present(value))
      .map(([name]) => `${name} is missing`);
    return { ok: false, problems };
  }
  return { ok: true, message: { providerMessageId: sid, from, to, body: form.Body ?? '', at: now } };
}
