import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

export type PhoneCheck =
  | { ok: true; e164: string; country: string | undefined }
  | { ok: false; reason: string };

const E164_RE = /^\+[1-9]\d{1,14}$/;

/** Strict E.164 (as sent, no formatting characters) and a number that is valid for its country. */
export function checkE164(value: string): PhoneCheck {
  if (!E164_RE.test(value)) return { ok: false, reason: 'Must be an E.164 number such as +14155550123.' };
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed?.isValid()) return { ok: false, reason: 'Not a valid phone number for its country.' };
  return { ok: true, e164: parsed.number, country: parsed.country };
}
