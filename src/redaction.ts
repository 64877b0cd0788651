/**
 * Transcript redaction (docs/call-data.md): phone numbers, e-mail addresses and card-like numbers in free text are
 * replaced by the kind of value they were. A pure rule, so one table of examples (redaction.test.ts) pins both
 * what is masked and what must stay; masking what is already masked changes nothing.
 */

/** What a masked value becomes: its kind, none of its characters. */
export const MASKS = { phone: '[phone]', email: '[email]', card: '[card]' } as const;

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** A run of digits joined by single spaces, dots, dashes or parentheses, with an optional leading `+`. */
const NUMBER_RUN = /\+?\(?\d(?:\)?[ .-]?\(?\d)*\)?/g;
/** A run glued to these is part of a word, an identifier (`ORD-2024-000123`, `#12345678`) or an amount. */
const GLUED_BEFORE = /[\p{L}\p{N}_#@$€£¥/.,-]/u;
const GLUED_AFTER = /[\p{L}\p{N}_@]/u;
const CURRENCY_BEFORE = /[$€£¥]\s$/u;
const DATE = [/^\d{4}([-./ ])\d{1,2}\1\d{1,2}$/, /^\d{1,2}([-./ ])\d{1,2}\1(?:\d{2}|\d{4})$/];
/** `3.14159265`, `1234.5678`: one dot between two groups is a decimal number. */
const DECIMAL = /^\d+\.\d+$/;
/** `2019-2020`, `1999 2001`: two years. */
const YEAR_RANGE = /^(?:19|20)\d{2}[ -](?:19|20)\d{2}$/;

type Kind = 'phone' | 'card';

const count = (s: string, c: string): number => s.split(c).length - 1;

/**
 * What a run of digits is: a phone number (a leading `+` and at least 7 digits; or 7 to 12 digits that are not a
 * date, a decimal number or two years), a card-like number (13 to 19 digits, whatever their checksum: a number
 * read aloud is often transcribed a digit wrong), or neither (shorter, longer, glued to a word or an amount).
 */
function kindOf(run: string, before: string, after: string, prefix: string): Kind | null {
  if ((before && GLUED_BEFORE.test(before)) || (after && GLUED_AFTER.test(after))) return null;
  if (CURRENCY_BEFORE.test(prefix)) return null;
  const digits = run.replace(/\D/g, '').length;
  if (run.startsWith('+')) return digits >= 7 ? 'phone' : null;
  if (digits >= 13 && digits <= 19) return 'card';
  if (digits < 7 || digits > 12) return null;
  if (DATE.some((d) => d.test(run)) || DECIMAL.test(run) || YEAR_RANGE.test(run)) return null;
  return 'phone';
}

/** `text` with every phone number, e-mail address and card-like number replaced by its mask. */
export function redactText(text: string): string {
  const withoutEmails = text.replace(EMAIL, MASKS.email);
  return withoutEmails.replace(NUMBER_RUN, (run: string, offset: number, whole: string) => {
    // A closing parenthesis the run did not open belongs to the sentence: "(call 555-0100)".
    const unopened = run.endsWith(')') && count(run, '(') < count(run, ')');
    const core = unopened ? run.slice(0, -1) : run;
    const kind = kindOf(
      core,
      whole.charAt(offset - 1),
      whole.charAt(offset + run.length),
      whole.slice(Math.max(0, offset - 2), offset),
    );
    return kind ? MASKS[kind] + (unopened ? ')' : '') : run;
  });
}
