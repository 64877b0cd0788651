import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactText } from './redaction.ts';

/** Text as a transcript carries it → what is stored. */
const MASKED: [string, string][] = [
  // Phone numbers: international, national, local, with any of the usual separators.
  ['Call me at +1 415 555 0100.', 'Call me at [phone].'],
  ['+14155550100', '[phone]'],
  ['(415) 555-0100', '[phone]'],
  ['my number is 415-555-0100, thanks', 'my number is [phone], thanks'],
  ['415.555.0100', '[phone]'],
  ['it is 4155550100', 'it is [phone]'],
  ['the desk is 555-0100', 'the desk is [phone]'],
  ['+44 20 7946 0958', '[phone]'],
  ['Rappelez le +33 1 23 45 67 89 ou le 06 12 34 56 78', 'Rappelez le [phone] ou le [phone]'],
  ['Tel:4155550100', 'Tel:[phone]'],
  ['(call 555-0100)', '(call [phone])'],
  // E-mail addresses.
  ['Write to ann.lee+work@example.co.uk today', 'Write to [email] today'],
  ['jean-luc@exemple.fr.', '[email].'],
  ['mail 4155550100@sms.example.com', 'mail [email]'],
  // Card-like numbers: 13 to 19 digits, with or without spaces or dashes, whatever their checksum.
  ['card 4111 1111 1111 1111 exp 12/27', 'card [card] exp 12/27'],
  ['4111-1111-1111-1111', '[card]'],
  ['4111111111111111', '[card]'],
  ['4111 1111 1111 1112', '[card]'],
  ['amex 3782 822463 10005', 'amex [card]'],
  ['4111 1111 1111 1111 123', '[card]'],
  // Knowingly masked: a bare 7-to-12-digit number cannot be told from a phone number.
  ['order number 98765432', 'order number [phone]'],
];

/** Text that must stay as it is. */
const KEPT: string[] = [
  'See you at 10:30 tomorrow, or between 9:00 and 17:45.',
  'on 2026-12-01, on 12/01/2026, on 01.12.2026, or 1 December 2026',
  'It costs $1,299.99, or € 12 345 678, or 12,50 €',
  'Room 42, floor 3, door code 1234, zip 94103, PIN 123456',
  'Order ORD-2024-000123, order #12345678, ticket A1B2C3D4, invoice INV20241234567',
  'pi is 3.14159265 and the build is version 1.2.3',
  'the 2019-2020 season',
  'tracking 12345678901234567890',
  'call me back in 15 minutes, 2 or 3 times',
  'Already masked: [phone], [email] and [card].',
  '',
];

describe('transcript redaction', () => {
  it('masks phone numbers, e-mail addresses and card-like numbers', () => {
    for (const [text, expected] of MASKED) assert.equal(redactText(text), expected, text);
  });

  it('keeps times, dates, prices, short numbers, identifiers and decimals', () => {
    for (const text of KEPT) assert.equal(redactText(text), text, text);
  });

  it('masks once: masked text masked again is the same', () => {
    for (const [text] of MASKED) assert.equal(redactText(redactText(text)), redactText(text), text);
  });
});
