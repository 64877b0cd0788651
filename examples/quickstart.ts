/**
 * The SDK in five steps: check the key, list assistants, page through calls, place a call safely,
 * and subscribe to webhooks.
 *
 *   NODE_EXTRA_CA_CERTS=data/tls/cert.pem VOICE_CALLS_API_KEY=svc_live_… npm run example:quickstart
 *
 * from the repository root, against the server `npm start` serves (VOICE_CALLS_BASE_URL, default
 * https://127.0.0.1:8443; NODE_EXTRA_CA_CERTS trusts its self-signed certificate). In a project of your own,
 * install the SDK (sdk/README.md) and run this file as you run any other.
 */
import { randomUUID } from 'node:crypto';
import { ProblemError, VoiceCallsClient } from '@voice-calls/sdk';

const apiKey = process.env.VOICE_CALLS_API_KEY;
if (!apiKey) {
  console.error('Set VOICE_CALLS_API_KEY (svc_live_…).');
  process.exit(2);
}
const client = new VoiceCallsClient({
  apiKey,
  baseUrl: process.env.VOICE_CALLS_BASE_URL ?? 'https://127.0.0.1:8443',
  onRetry: ({ path, attempt, delayMs, status }) =>
    console.log(`retry ${attempt} of ${path} in ${delayMs} ms (${status})`),
});

try {
  const me = await client.whoami();
  console.log(
    `Key of ${me.customer_name}; scopes:`,
    Object.keys(me.permissions).filter((s) => me.permissions[s as keyof typeof me.permissions]),
  );

  const { data: assistants } = await client.assistants.list({ limit: 5 });
  console.log(`Assistants: ${assistants.map((a) => a.name).join(', ') || 'none'}`);

  let count = 0;
  for await (const call of client.calls.iterate({ direction: 'inbound', limit: 100 })) {
    if (count++ < 3)
      console.log(`${call.started_at} ${call.from_number} → ${call.assistant_name}: ${call.status}`);
  }
  console.log(`${count} inbound calls in all`);

  const assistant = assistants.find((a) => a.is_active && a.phone_numbers.length > 0);
  if (assistant && process.env.CALL_NUMBER) {
    // Reuse the same key when you retry this call yourself: it is placed at most once.
    const call = await client.outboundCalls.create(
      { assistant_id: assistant.id, to_number: process.env.CALL_NUMBER, external_id: 'quickstart' },
      { idempotencyKey: randomUUID() },
    );
    console.log(`Placed ${call.id} (${call.status})`);
  }

  if (process.env.WEBHOOK_URL) {
    const { created, subscription } = await client.webhookSubscriptions.create({
      url: process.env.WEBHOOK_URL,
      events: ['call.completed', 'call.transcript.ready'],
      description: 'quickstart',
    });
    console.log(created ? `Subscribed; keep this secret: ${subscription.secret}` : 'Already subscribed.');
  }
} catch (error) {
  if (error instanceof ProblemError) {
    console.error(`${error.status} ${error.code}: ${error.detail} (request ${error.requestId})`);
    for (const issue of error.issues) console.error(`  ${issue.path.join('.')}: ${issue.message}`);
    process.exit(1);
  }
  throw error;
}
