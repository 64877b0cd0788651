import { z } from 'zod';
import { assistantIdField, e164Number, externalId, metadata, optional } from '../outbound/index.ts';

/** Far past the longest message (10 UCS-2 segments are 670 characters): the segment count refuses what passes. */
export const BODY_MAX_CHARACTERS = 1600;

/** POST /sms/send and its dry run. */
export const sendSmsBody = z.strictObject({
  assistant_id: assistantIdField('The assistant that sends (active, with a number).'),
  to_number: e164Number.meta({
    description: "E.164 recipient, a mobile number in a country of the key's allowlist.",
    examples: ['+14155550123'],
  }),
  body: z
    .string()
    .max(BODY_MAX_CHARACTERS, `Must be at most ${BODY_MAX_CHARACTERS} characters.`)
    .meta({
      description:
        'The text. GSM-7 when every character is in that alphabet (160 characters in one segment, 153 per ' +
        'segment when longer), else UCS-2 (70, then 67); at most 10 segments.',
      examples: ['Your table for 2 is booked for Friday at 7 pm. Reply STOP to opt out.'],
    }),
  from_number: optional(e164Number).meta({
    description: "Which of the assistant's numbers sends; its first number when left out.",
    examples: ['+14155550100'],
  }),
  external_id: optional(externalId).meta({
    description: 'Your own reference, echoed on the message and in sms.sent.',
  }),
  metadata: optional(metadata).meta({ description: 'Free-form flat key/value data kept with the message.' }),
});
export type SendSmsBody = z.output<typeof sendSmsBody>;
