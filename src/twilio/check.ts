import type { SmsProviderError, SmsResult } from '../sms/index.ts';
import { readAccount, readNumbers, type TwilioNumber } from './answers.ts';
import type { Requests } from './requests.ts';

/** What `provider check` says of Twilio: whether it answers our credentials, and the numbers that can text. */
export type TwilioCheck = {
  /** `unreachable`: nothing answered in time; `unauthorized`: the SID and token were refused; `failing`: it
   * answered with an error, one we cannot read, or an account that is not active. */
  state: 'ok' | 'unauthorized' | 'unreachable' | 'failing';
  detail: string | null;
  smsNumbers: string[];
};

/** More than any account we serve has; one page of the list (Twilio's largest). */
const NUMBERS_PAGE_SIZE = 1000;

const stateOf = (error: SmsProviderError): TwilioCheck['state'] => {
  if (error.httpStatus === 401 || error.httpStatus === 403) return 'unauthorized';
  if (error.code === 'timeout' || error.httpStatus === undefined) return 'unreachable';
  return 'failing';
};

export function createChecks(requests: Requests, accountSid: string) {
  function numbers(): Promise<SmsResult<TwilioNumber[]>> {
    return requests.ask(
      'incoming_phone_numbers.list',
      `the incoming numbers of account ${accountSid}`,
      (sdk) => sdk.api.v2010.accounts(accountSid).incomingPhoneNumbers.list({ pageSize: NUMBERS_PAGE_SIZE }),
      readNumbers,
    );
  }

  async function check(): Promise<TwilioCheck> {
    const account = await requests.ask(
      'accounts.fetch',
      `account ${accountSid}`,
      (sdk) => sdk.api.v2010.accounts(accountSid).fetch(),
      readAccount,
    );
    if (!account.ok) return { state: stateOf(account.error), detail: account.error.detail, smsNumbers: [] };
    if (account.value.status !== 'active') {
      const detail = `The Twilio account ${accountSid} is ${account.value.status}: it sends nothing.`;
      return { state: 'failing', detail, smsNumbers: [] };
    }
    const listed = await numbers();
    if (!listed.ok) return { state: stateOf(listed.error), detail: listed.error.detail, smsNumbers: [] };
    const smsNumbers = listed.value.filter((n) => n.sms).map((n) => n.number);
    const detail =
      smsNumbers.length === 0
        ? `The Twilio account ${accountSid} has no number that can send text messages.`
        : null;
    return { state: 'ok', detail, smsNumbers };
  }

  return { check, numbers };
}
