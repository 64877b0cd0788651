import { insertCalls } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { AssistantRow, Database } from '../db/index.ts';
import { SCOPES } from '../keys/index.ts';
import { recordSettledSpend } from '../outbound/index.ts';
import { rng } from '../provider/index.ts';
import type { Services } from '../services.ts';
import { generateCalls } from './call-generator.ts';

export type DemoSeed = {
  customerId: string;
  keyPrefix: string;
  secret: string;
  assistants: number;
  calls: number;
  messages: number;
};

/**
 * A demo customer with assistants, a month of realistic calls (the outbound ones placed with the demo key, their
 * cost in the outbound ledger), and that key, with every grantable scope.
 */
export async function seedDemo(
  db: Database,
  services: Services,
  clock: Clock,
  calls = 250,
): Promise<DemoSeed> {
  const customer = await services.customers.createCustomer({ name: 'Demo Dental Group' });
  const specs = [
    {
      name: 'Front Desk',
      description: 'Answers inbound calls and books appointments.',
      voiceId: 'aria',
      phone: '+14155550101',
      outboundShare: 0.1,
    },
    {
      name: 'Reminders',
      description: 'Calls patients to confirm appointments.',
      voiceId: 'orion',
      phone: '+14155550102',
      outboundShare: 0.95,
    },
    {
      name: 'Accueil',
      description: 'Répond aux appels en français.',
      voiceId: 'juniper',
      phone: '+15145550103',
      language: 'fr-CA',
      outboundShare: 0.2,
    },
  ];
  const assistants: AssistantRow[] = [];
  const outboundShare: Record<string, number> = {};
  for (const s of specs) {
    const assistant = await services.assistants.createAssistant({
      customerId: customer.id,
      name: s.name,
      description: s.description,
      voiceId: s.voiceId,
      language: s.language ?? 'en-US',
      phoneNumbers: [s.phone],
    });
    assistants.push(assistant);
    outboundShare[assistant.id] = s.outboundShare;
  }
  const { key, secret } = await services.keys.createKey({
    customerId: customer.id,
    name: 'Demo key',
    scopes: SCOPES,
  });
  // As the service records them: every outbound call is placed through the API with a key, and its cost is in
  // the outbound ledger (settled), so the usage page's spend per key and cost by country read the same amounts.
  const rows = generateCalls({
    customerId: customer.id,
    assistants,
    count: calls,
    end: clock.now(),
    days: 30,
    random: rng(42),
    outboundShare,
  }).map((r) => (r.direction === 'outbound' ? { ...r, api_initiated: true, api_key_id: key.id } : r));
  await insertCalls(db, rows);
  await db.transaction().execute(async (tx) => {
    for (const r of rows) {
      if (r.direction !== 'outbound') continue;
      await recordSettledSpend(tx, {
        callId: r.id,
        keyId: key.id,
        customerId: customer.id,
        startedAt: r.started_at,
        endedAt: r.ended_at ?? r.started_at,
        costUsd: r.cost_usd ?? '0',
      });
    }
  });
  const messages = await textSomePatients(services, key.id, assistants);
  return {
    customerId: customer.id,
    keyPrefix: key.prefix,
    secret,
    assistants: assistants.length,
    calls: rows.length,
    messages,
  };
}

/**
 * A few text messages as the demo key sends them (the simulator delivers them within seconds) and a patient's
 * reply to one: the dashboard's Messages page and the sms.* events have something to show. Returns how many.
 */
async function textSomePatients(
  services: Services,
  keyId: string,
  assistants: AssistantRow[],
): Promise<number> {
  const reminders = assistants[1];
  const principal = await services.authenticator.actAs(keyId);
  if (!reminders || 'code' in principal) return 0;
  const texts = [
    [
      '+14155550142',
      'Reminder: your cleaning is tomorrow at 10:00. Reply YES to confirm or call us to reschedule.',
    ],
    [
      '+14155550143',
      'Your appointment on Friday at 15:30 is confirmed. See you soon! Reply STOP to opt out.',
    ],
    ['+14155550181', 'Reminder: your check-up is on Monday at 9:00.'],
  ] as const;
  for (const [to, body] of texts) {
    await services.sms.send(
      principal,
      { assistant_id: reminders.id, to_number: to, body, ...NO_OPTIONS },
      null,
    );
  }
  await services.sms.simulateInbound({
    to: reminders.phone_numbers[0] ?? '',
    from: '+14155550142',
    body: 'YES',
  });
  return texts.length + 1;
}

const NO_OPTIONS = { from_number: undefined, external_id: undefined, metadata: undefined };
