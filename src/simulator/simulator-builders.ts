import { randomBytes } from 'node:crypto';
import type { PlaceCallRequest } from '../provider/index.ts';
import { rng } from '../provider/index.ts';
import type { NewSimCall as StoredCall } from './simulator-calls.ts';
import { type Outcome, outboundOutcome, planSteps, type Step, testNumber } from './simulator-plan.ts';
import { buildScript, conversationIdFor, type ScriptInput, seedOf } from './simulator-script.ts';

export type InboundCall = {
  assistantId: string;
  from: string;
  to: string;
  callerName: string | null;
  language: string;
  /** Forces the outcome; by default 1 in 20 callers hang up before the assistant answers. */
  outcome?: 'completed' | 'canceled';
  /** A test-mode inbound call: the customer's test twin, which files it. */
  testCustomerId?: string;
};

type NewSimCall = { call: StoredCall; steps: Step[] };

const INBOUND_MAX_SECONDS = 600;
export const newProviderCallId = (): string => `sim_call_${randomBytes(12).toString('hex')}`;

function assemble(
  call: NewSimCall['call'],
  direction: 'inbound' | 'outbound',
  outcome: Outcome,
  random: () => number,
): NewSimCall {
  const { details, disconnectReason } = call.script;
  return {
    call,
    steps: planSteps({
      direction,
      outcome,
      random,
      talkSeconds: details.durationSeconds,
      talkReason: disconnectReason,
    }),
  };
}

/** An outbound call: outcome from the destination (test numbers) or chance, seeded by our call id. */
export function outboundSimCall(request: PlaceCallRequest): NewSimCall {
  const random = rng(seedOf(request.callId));
  const test = request.testMode ? testNumber(request.to) : null;
  const asked = test && 'outcome' in test ? test : null;
  const outcome = asked ? asked.outcome : outboundOutcome(request.to, random);
  const conversationId = conversationIdFor('outbound', request.language);
  const input: ScriptInput = {
    direction: 'outbound',
    language: request.language,
    variables: request.variables,
    maxDurationSeconds: request.maxDurationSeconds,
    long: outcome === 'long',
    ...(outcome === 'voicemail' ? { voicemail: true } : {}),
    ...(asked?.settleSeconds ? { settleSeconds: asked.settleSeconds } : {}),
  };
  const call = {
    providerCallId: newProviderCallId(),
    callId: request.callId,
    conversationId,
    input,
    script: buildScript(conversationId, input),
    inbound: null,
  };
  return assemble(call, 'outbound', outcome, random);
}

/** Someone rings one of an assistant's numbers. */
export function inboundSimCall(input: InboundCall): NewSimCall {
  const providerCallId = newProviderCallId();
  const random = rng(seedOf(providerCallId));
  const conversationId = conversationIdFor('inbound', input.language);
  const scriptInput: ScriptInput = {
    direction: 'inbound',
    language: input.language,
    variables: {},
    maxDurationSeconds: INBOUND_MAX_SECONDS,
    long: false,
  };
  const script = buildScript(conversationId, scriptInput);
  const { language: _language, outcome: forced, ...inbound } = input;
  const outcome = forced ?? (random() < 0.05 ? 'canceled' : 'completed');
  return assemble(
    { providerCallId, callId: null, conversationId, input: scriptInput, script, inbound },
    'inbound',
    outcome,
    random,
  );
}
