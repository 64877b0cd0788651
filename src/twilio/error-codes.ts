import type { SmsRefusal } from '../sms/index.ts';

/**
 * Twilio's codes for a message it refuses when asked to send it: nothing was sent, and a retry would be refused the
 * same way (https://www.twilio.com/docs/api/errors/<code>).
 */
export const REFUSALS: ReadonlyMap<string, SmsRefusal> = new Map([
  ['21610', 'opted_out'],
  ['21211', 'unreachable'],
  ['21217', 'unreachable'],
  ['21408', 'unreachable'],
  ['21612', 'unreachable'],
  ['21614', 'unreachable'],
  ['21212', 'sender_unavailable'],
  ['21606', 'sender_unavailable'],
  ['21659', 'sender_unavailable'],
  ['21660', 'sender_unavailable'],
]);

/** Twilio's code for "too many concurrent requests", answered with HTTP 429. */
export const TOO_MANY_REQUESTS = '20429';

const SENTENCES: ReadonlyMap<string, string> = new Map([
  ['30001', "Queue overflow: more messages were waiting for this sender than Twilio's queue holds."],
  ['30002', 'The Twilio account was suspended when the message was due to go out.'],
  ['30003', "Unreachable destination handset: the recipient's phone is off or out of coverage."],
  ['30004', 'Message blocked: the recipient or their carrier blocks messages from this sender.'],
  ['30005', 'Unknown destination handset: the number does not exist or is no longer in service.'],
  ['30006', 'Landline or unreachable carrier: the number cannot receive text messages.'],
  ['30007', 'Message filtered by the carrier (as spam or against its rules).'],
  ['30008', 'Unknown error: the carrier did not say why the message was not delivered.'],
  ['21211', "The 'To' number is not a valid phone number."],
  ['21212', "The 'From' number is not a valid phone number or short code."],
  ['21217', "The 'To' number does not appear to be a valid phone number."],
  ['21408', "Sending to the 'To' number's country or region is not enabled on the Twilio account."],
  ['21606', "The 'From' number is not an SMS-capable number of this Twilio account."],
  ['21610', 'The recipient has unsubscribed from this sender (replied STOP).'],
  ['21612', "Twilio cannot route a text message from this sender to the 'To' number."],
  ['21614', "The 'To' number is not a mobile number and cannot receive text messages."],
  ['21659', "The 'From' number is not a Twilio phone number."],
  ['21660', "The 'From' number does not belong to this Twilio account."],
]);

/** One sentence for a person on what Twilio's error code means. */
export const errorSentence = (code: string): string =>
  SENTENCES.get(code) ?? `Twilio reported error ${code} (https://www.twilio.com/docs/api/errors/${code}).`;
