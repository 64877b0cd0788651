import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findAssistant } from '../assistants/index.ts';
import {
  type CallsService,
  callDetailSchema,
  callIdForProviderCall,
  type LifecycleService,
} from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { AppError } from '../errors/index.ts';
import { apiResponses } from '../http/index.ts';
import { type Principal, requirePrincipal } from '../keys/index.ts';
import { outboundCallBody } from '../outbound/index.ts';
import type { Simulator } from '../simulator/index.ts';

export const testInboundBody = z.strictObject({
  assistant_id: outboundCallBody.shape.assistant_id.meta({
    type: 'string',
    format: 'uuid',
    description: 'The assistant that is rung (active, with a number).',
  }),
  // The same strict E.164 check as a placement's destination.
  from_number: outboundCallBody.shape.to_number
    .optional()
    .meta({ description: 'Who calls (E.164); default +14155550123.', examples: ['+14155550123'] }),
  caller_name: z.string().min(1).max(100).optional(),
  outcome: z.enum(['completed', 'canceled']).optional().meta({
    description: '`canceled`: the caller hangs up before the assistant answers. Default `completed`.',
  }),
});

/**
 * Test mode's simulated inbound calls: someone rings one of the customer's assistants, played by the built-in
 * simulator; the call is created at once (ringing), filed under the customer's test data, and goes on as any
 * inbound call (answered, ended, post-processed, events to test subscriptions).
 */
export function createTestInbound(deps: {
  db: Database;
  clock: Clock;
  simulator: Simulator;
  lifecycle: LifecycleService;
  calls: CallsService;
}) {
  return {
    async ring(p: Principal, body: z.output<typeof testInboundBody>) {
      if (p.mode !== 'test') {
        throw new AppError(
          'perm.denied',
          'Simulated inbound calls are for test mode only: use a svc_test_ key.',
        );
      }
      const assistant = await findAssistant(deps.db, body.assistant_id);
      const to = assistant?.phone_numbers[0];
      if (!assistant || assistant.customer_id !== p.accountId || !assistant.is_active || !to) {
        throw new AppError(
          'resource.not_found',
          'No active assistant of yours with a phone number has this id.',
        );
      }
      const inbound = {
        assistantId: assistant.id,
        from: body.from_number ?? '+14155550123',
        to,
        callerName: body.caller_name ?? null,
        testCustomerId: p.customerId,
      };
      const providerCallId = await deps.simulator.simulateInbound({
        ...inbound,
        language: assistant.language,
        // Test mode plays what is asked: answered unless told otherwise (live simulated callers hang up at times).
        outcome: body.outcome ?? 'completed',
      });
      // The simulator's first step (the call arriving) is applied now, so the call exists in the answer; when the
      // simulator delivers that step too, it is a duplicate and ignored.
      await deps.lifecycle.applyProviderEvent({
        type: 'call.inbound',
        providerCallId,
        ...inbound,
        at: deps.clock.now(),
      });
      const callId = await callIdForProviderCall(deps.db, providerCallId);
      if (!callId) throw new Error(`the simulated inbound call ${providerCallId} was not recorded`);
      return deps.calls.getCall(p.customerId, callId);
    },
  };
}

export type TestInbound = ReturnType<typeof createTestInbound>;

/** POST /test/inbound-calls (test mode only). */
export function registerTestInboundCalls(app: FastifyInstance, testInbound: TestInbound): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/test/inbound-calls',
    {
      schema: {
        operationId: 'createTestInboundCall',
        summary: 'Simulate an inbound call (test mode)',
        description:
          'Test mode only (a `svc_test_` key; a live key is refused with 403 `perm.denied`): a simulated caller ' +
          "rings one of the customer's assistants. Answers 201 with the call, already ringing; it is answered " +
          'within seconds and ends, with its events, transcript and insights as for a live call. Scope `read_calls`.',
        tags: ['Test mode'],
        body: testInboundBody,
        response: apiResponses({ 201: { description: 'The call, ringing.', schema: callDetailSchema } }, [
          'perm.denied',
          'input.invalid',
          'resource.not_found',
        ]),
      },
      config: { scope: 'read_calls' },
    },
    async (request, reply) =>
      reply.code(201).send(await testInbound.ring(requirePrincipal(request), request.body)),
  );
}
