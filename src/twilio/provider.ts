import type { Clock } from '../clock.ts';
import type { SendSmsRequest, SentSms, SmsProvider, SmsResult, SmsStatusReport } from '../sms/index.ts';
import { readReport, readSent } from './answers.ts';
import type { Requests } from './requests.ts';
import { SMS_STATUS_PATH } from './webhook-paths.ts';

export type ProviderSettings = { messagingServiceSid?: string | undefined; publicBaseUrl: string };

/** Message SIDs are letters and digits (SM…, MM…): anything else is no message of Twilio's, and no path of its API. */
const MESSAGE_SID = /^[A-Za-z0-9]{2,64}$/;

/** The status callback of one message: Twilio posts there as it moves on, our id in the query. */
export const statusCallbackUrl = (publicBaseUrl: string, messageId: string): string =>
  `${publicBaseUrl}${SMS_STATUS_PATH}?message_id=${encodeURIComponent(messageId)}`;

/**
 * Twilio Programmable Messaging behind the SMS provider interface. A message goes out from the Messaging Service
 * when one is configured (it picks the sender), else from the assistant's number; `testMode` is not Twilio's to
 * play (a test key's messages go to the simulator).
 */
export function createTwilioProvider(
  requests: Requests,
  settings: ProviderSettings,
  clock: Clock,
): SmsProvider {
  return {
    name: 'twilio',

    send(request: SendSmsRequest): Promise<SmsResult<SentSms>> {
      const sender = settings.messagingServiceSid
        ? { messagingServiceSid: settings.messagingServiceSid }
        : { from: request.from };
      return requests.ask(
        'messages.create',
        `message ${request.messageId}`,
        (sdk) =>
          sdk.messages.create({
            to: request.to,
            body: request.body,
            statusCallback: statusCallbackUrl(settings.publicBaseUrl, request.messageId),
            ...sender,
          }),
        readSent,
        { tookEffect: 'Twilio accepted the request, so the message may be on its way all the same.' },
      );
    },

    async status(providerMessageId: string): Promise<SmsResult<SmsStatusReport>> {
      const what = `message ${providerMessageId}`;
      if (!MESSAGE_SID.test(providerMessageId)) {
        return {
          ok: false,
          error: { code: 'not_found', retryable: false, detail: `Twilio does not know ${what}.` },
        };
      }
      return requests.ask(
        'messages.fetch',
        what,
        (sdk) => sdk.messages(providerMessageId).fetch(),
        (answer) => readReport(answer, clock.now()),
        { notFoundMeansUnknown: true },
      );
    },
  };
}
