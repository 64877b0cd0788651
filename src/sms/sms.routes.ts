import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../errors/index.ts';
import { apiResponses, POST_CODES } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { e164Number, parseIdempotencyKey } from '../outbound/index.ts';
import { enumParam, intParam, MAX_CURSOR_LENGTH, tokenParam, uuidParam } from '../pagination/index.ts';
import { type SendSmsBody, sendSmsBody } from './sms.schema.ts';
import type { SmsService } from './sms.service.ts';
import {
  messageDetailSchema,
  messageSchema,
  messagesPageSchema,
  SMS_STATUSES,
  smsDryRunSchema,
} from './sms.views.ts';

const tags = ['Text messages'];
const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .optional()
    .meta({
      description: 'Makes retries safe: one message per key and body, for 24 hours.',
      examples: ['booking-1234-confirmation'],
    }),
});
const messageIdParams = z.strictObject({
  id: z
    .string()
    .max(64)
    .meta({ description: 'The message id (`sms_…`).', examples: ['sms_4f0c2a9e7b1d3c5a6e8f0b2d'] }),
});
const listQuery = z.strictObject({
  assistant_id: uuidParam(),
  api_key_id: uuidParam(),
  direction: enumParam(['inbound', 'outbound'] as const),
  status: enumParam(SMS_STATUSES as readonly [string, ...string[]]),
  limit: intParam(1, 100),
  cursor: tokenParam(MAX_CURSOR_LENGTH),
});

const SEND_CODES = [
  ...POST_CODES,
  'perm.denied',
  'input.invalid',
  'resource.not_found',
  'resource.conflict',
  'sms.body_empty',
  'sms.body_too_long',
  'sms.number_unreachable',
  'sms.recipient_opted_out',
  'sms.sender_unavailable',
  'outbound.country_not_allowed',
  'outbound.number_not_allowed',
  'outbound.spend_cap_exceeded',
  'outbound.assistant_inactive',
  'outbound.assistant_no_phone_number',
  'carrier.unavailable',
  'carrier.busy',
] as const;

/** The text message operations (scope `send_sms`: sending, and reading what was sent and received). */
export function registerSmsRoutes(app: FastifyInstance, sms: SmsService): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/sms/send',
    {
      config: { scope: 'send_sms' },
      schema: {
        operationId: 'sendSms',
        summary: 'Send a text message',
        description:
          "From one of the assistant's numbers to an E.164 mobile number. Checks, in order: the text (not empty, at " +
          "most 10 segments), the assistant and its sending number, the number's type and the key's country " +
          'allowlist (as for calls), that the number can take texts, that the recipient has not replied STOP, and ' +
          "the key's daily spend cap (every segment at the price per segment, held with the key's calls). Answers " +
          '201 with the message, `queued`; `sms.sent` follows at its final status. `Idempotency-Key` as on ' +
          '`POST /outbound-calls`: a retry never sends twice.',
        tags,
        headers: idempotencyHeaders,
        body: sendSmsBody,
        querystring: z.strictObject({}),
        response: apiResponses(
          {
            201: {
              description: 'The message is queued (or the replay of an earlier 201).',
              schema: messageSchema,
            },
          },
          [...SEND_CODES],
        ),
      },
    },
    async (request, reply) => {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const result = await sms.send(requirePrincipal(request), request.body as SendSmsBody, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      reply.header('location', `/api/v1/sms/messages/${result.body.id}`);
      return reply.code(result.status).send(result.body);
    },
  );

  typed.post(
    '/sms/send/dry-run',
    {
      config: { scope: 'send_sms' },
      schema: {
        operationId: 'dryRunSms',
        summary: 'Check a text message without sending it',
        description:
          'The same body and scope as `POST /sms/send`: every check a send makes, each with its outcome and the code ' +
          'a send would answer; the encoding and segment count. Nothing is sent or reserved.',
        tags,
        body: sendSmsBody,
        querystring: z.strictObject({}),
        response: apiResponses(
          { 200: { description: 'What a send would answer, check by check.', schema: smsDryRunSchema } },
          [...POST_CODES, 'perm.denied', 'input.invalid'],
        ),
      },
    },
    async (request) => sms.dryRun(requirePrincipal(request), request.body as SendSmsBody),
  );

  typed.get(
    '/sms/messages',
    {
      config: { scope: 'send_sms' },
      schema: {
        operationId: 'listMessages',
        summary: 'List text messages',
        description:
          'Sent and received, newest first. Filters combine; pass `next_cursor` as `cursor` for the next page (a ' +
          'cursor only continues the list it came from).',
        tags,
        querystring: listQuery,
        response: apiResponses(
          { 200: { description: 'One page of messages.', schema: messagesPageSchema } },
          ['perm.denied', 'input.invalid'],
        ),
      },
    },
    async (request) =>
      sms.list(requirePrincipal(request).customerId, request.query as Parameters<SmsService['list']>[1]),
  );

  typed.get(
    '/sms/messages/:id',
    {
      config: { scope: 'send_sms' },
      schema: {
        operationId: 'getMessage',
        summary: 'Get a text message',
        description:
          "The message and every status it reached. Another customer's message is a 404, like a missing one.",
        tags,
        params: messageIdParams,
        querystring: z.strictObject({}),
        response: apiResponses({ 200: { description: 'The message.', schema: messageDetailSchema } }, [
          'perm.denied',
          'input.invalid',
          'resource.not_found',
        ]),
      },
    },
    async (request) => sms.get(requirePrincipal(request).customerId, request.params.id),
  );

  typed.post(
    '/test/inbound-sms',
    {
      config: { scope: 'send_sms' },
      schema: {
        operationId: 'createTestInboundSms',
        summary: 'Simulate an inbound text message (test mode)',
        description:
          'Test mode only (a `svc_test_` key; a live key is refused with 403 `perm.denied`): someone texts one of ' +
          "the customer's assistant numbers. Answers 201 with the message; `sms.received` goes to test " +
          'subscriptions. `STOP` opts the sender out of that number (test mode only), `START` back in.',
        tags: ['Test mode'],
        body: z.strictObject({
          to_number: e164Number.meta({
            description: "One of your assistants' numbers.",
            examples: ['+14155550100'],
          }),
          from_number: e164Number
            .optional()
            .meta({ description: 'Who texts; default +14155550123.', examples: ['+14155550123'] }),
          body: z
            .string()
            .min(1)
            .max(1600)
            .meta({ examples: ['Yes, 3 pm works for me.'] }),
        }),
        response: apiResponses(
          { 201: { description: 'The message, received.', schema: messageDetailSchema } },
          ['perm.denied', 'input.invalid', 'resource.not_found'],
        ),
      },
    },
    async (request, reply) => {
      const p = requirePrincipal(request);
      if (p.mode !== 'test')
        throw new AppError(
          'perm.denied',
          'Simulated inbound messages are for test mode only: use a svc_test_ key.',
        );
      const id = await sms.receiveTest(p, request.body);
      return reply.code(201).send(await sms.get(p.customerId, id));
    },
  );
}
