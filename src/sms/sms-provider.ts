/**
 * The boundary to whoever carries text messages: the built-in simulator (simulator/sms-simulator.ts) by default,
 * Twilio Programmable Messaging (twilio/) with SMS_PROVIDER=twilio. Expected failures are values, never exceptions,
 * as for the voice provider (provider/interface.ts).
 */
import type { ProviderError } from '../provider/index.ts';

/** A message's delivery status as providers report it (Twilio's names; ours are the same plus `received`). */
export type SmsDeliveryStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed';

/** Why a provider refused a message outright: nothing was sent, a retry would be refused the same way. */
export type SmsRefusal =
  /** The recipient replied STOP to this sender (Twilio 21610). */
  | 'opted_out'
  /** The number cannot receive text messages: invalid, a landline, not routable (Twilio 21211, 21614, 21612, 21408). */
  | 'unreachable'
  /** The sender cannot send from this number: not SMS-capable, not the account's (Twilio 21606, 21659, 21660). */
  | 'sender_unavailable';

export type SmsProviderError =
  | ProviderError
  | {
      code: 'refused';
      reason: SmsRefusal;
      retryable: false;
      /** The provider's own error code (Twilio's numbering), when it gave one. */
      providerCode: string | null;
      detail: string;
      httpStatus?: number;
    };

export type SmsResult<T> = { ok: true; value: T } | { ok: false; error: SmsProviderError };

export type SendSmsRequest = {
  /** Our message id (`sms_…`): the simulator keys its state on it; Twilio gets it in the status callback's query. */
  messageId: string;
  from: string;
  to: string;
  body: string;
  /** A `svc_test_` key's message: the simulator plays the test numbers' outcomes (docs/test-mode.md). */
  testMode?: boolean;
};

export type SentSms = { providerMessageId: string; status: SmsDeliveryStatus };

/**
 * What a provider says of one message: a status callback, a simulated step, or the answer when we ask
 * (reconciliation). Reports arrive out of order and more than once; the message's own rules decide (sms-status.ts).
 */
export type SmsStatusReport = {
  providerMessageId: string;
  /**
   * Our message id, when the report carries it (Twilio's status callback URL names it): how a message whose send
   * timed out, so that we never learnt its provider id, is found.
   */
  messageId?: string;
  status: SmsDeliveryStatus;
  /** The provider's error code for failed and undelivered (Twilio's numbering: 30003–30008, 21610…). */
  errorCode: string | null;
  /** One sentence for a person, when errorCode is set. */
  errorMessage: string | null;
  at: Date;
};

/** A text message someone sent to one of our numbers. */
export type InboundSms = {
  providerMessageId: string;
  from: string;
  to: string;
  body: string;
  at: Date;
  /**
   * A test-mode inbound message (POST /test/inbound-sms): the test twin it is filed under, and the customer whose
   * assistants' numbers it may reach.
   */
  test?: { customerId: string; accountId: string };
};

export interface SmsProvider {
  readonly name: 'simulator' | 'twilio';
  send(request: SendSmsRequest): Promise<SmsResult<SentSms>>;
  /** The provider's current word on one message (reconciliation of messages whose final status never came). */
  status(providerMessageId: string): Promise<SmsResult<SmsStatusReport>>;
}

/**
 * Where providers report what happens to messages; the SMS service implements it. Both methods are idempotent:
 * a report or an inbound message seen before changes nothing.
 */
export type SmsInbox = {
  /** `unknown`: no message of ours has this provider id (yet: a callback can overtake the send's own answer). */
  statusReported(report: SmsStatusReport): Promise<'applied' | 'ignored' | 'unknown'>;
  /** Null when no assistant owns `to` (the message is logged and dropped), or it was received before. */
  received(message: InboundSms): Promise<{ messageId: string } | null>;
};
