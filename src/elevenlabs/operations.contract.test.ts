import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { ManualClock } from '../clock.ts';
import type { ProviderHealth } from '../provider/index.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from '../testing/fake-elevenlabs.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { newAssistant, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { embeddedServe, serveOn } from '../testing/serve-process.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { createElevenLabsProvider } from './adapter.ts';
import { upsertAgentLink } from './agent-links.repository.ts';
import { webhookExposureWarning } from './exposure.ts';
import { createElevenLabsHealth } from './health.ts';

/**
 * What an operator of PROVIDER=elevenlabs sees when something is wrong: the health check in `/readyz`, the
 * failure in the log with its real cause, the counts in `/metrics`, link checks that name the mismatch, and words
 * for the API customer that do not send them to an operator's CLI.
 */
const API_KEY = 'xi-operations-key';
const WEBHOOK_SECRET = 'wsec_operations0123456789abcdef';
const AGENT_NUMBER = '+14155550102';

/** A loopback port nothing listens on: connecting is refused (ECONNREFUSED). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const elevenlabsOf = (t: TestApp) => {
  const e = t.services.elevenlabs;
  if (!e) throw new Error('PROVIDER=elevenlabs expected');
  return e;
};

describe('operating PROVIDER=elevenlabs: what is wrong is named', () => {
  let fake: FakeElevenLabs;
  let t: TestApp;
  let seq = 0;

  before(async () => {
    await import('@elevenlabs/elevenlabs-js');
    fake = await startFakeElevenLabs({ apiKey: API_KEY });
    t = await startTestApp({
      provider: {
        kind: 'elevenlabs',
        apiKey: API_KEY,
        webhookSecret: WEBHOOK_SECRET,
        baseUrl: fake.baseUrl,
        timeoutMs: 2_000,
      },
    });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  describe('ElevenLabs unreachable (nothing listens at ELEVENLABS_BASE_URL)', () => {
    let down: TestApp;
    let baseUrl = '';
    before(async () => {
      baseUrl = `http://127.0.0.1:${await closedPort()}`;
      down = await startTestApp({
        provider: {
          kind: 'elevenlabs',
          apiKey: API_KEY,
          webhookSecret: WEBHOOK_SECRET,
          baseUrl,
          timeoutMs: 2_000,
        },
      });
    });
    after(() => down.close());

    it('/readyz stays 200 and names the provider, its state and the network error; the log says nothing answered', async () => {
      const health = await elevenlabsOf(down).health.check();
      assert.equal(health.state, 'unreachable');
      const ready = await down.request('GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.provider.name, 'elevenlabs');
      assert.equal(ready.body.provider.state, 'unreachable');
      assert.match(ready.body.provider.detail, /could not be reached \(ECONNREFUSED\)/);
      assert.match(
        ready.body.warnings.provider,
        new RegExp(`ElevenLabs cannot be reached at ${baseUrl} since .*ECONNREFUSED`),
      );
      const line = down.logs.map((l) => JSON.parse(l)).find((l) => l.operation === 'agents.list');
      assert.ok(line, down.logs.join('\n'));
      assert.equal(line.network_code, 'ECONNREFUSED');
      assert.equal(line.status, null);
      assert.match(
        line.msg,
        /ElevenLabs agents\.list failed: The voice provider could not be reached \(ECONNREFUSED\)/,
      );
      assert.ok(!down.logs.some((l) => l.includes('answered with an error')));
      const metrics = await down.request('GET', '/metrics');
      assert.match(
        metrics.text,
        /provider_requests_total\{operation="agents\.list",outcome="unavailable"\} 1/,
      );
    });

    it('a placement that never reached ElevenLabs: 502 carrier.unavailable, logged with ECONNREFUSED, never as an answer', async () => {
      const c = await newCaller(down);
      await upsertAgentLink(down.db, {
        assistantId: c.assistant.id,
        agentId: 'agent_unreachable',
        phoneNumbers: {
          [c.assistant.phone_numbers[0] ?? '']: { id: 'phnum_unreachable', telephony: 'twilio' },
        },
        now: down.clock.now(),
      });
      const before = down.logs.length;
      const res = await placeCall(down, c, { to_number: '+14155550199' });
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'carrier.unavailable');
      const lines = down.logs.slice(before).join('\n');
      assert.match(lines, /"network_code":"ECONNREFUSED"/);
      assert.match(lines, /could not be reached \(ECONNREFUSED\)/);
      assert.doesNotMatch(lines, /answered/);
    });

    it('a reconciliation pass that fails is logged once, with its cause, and counted; not once per call or agent', async () => {
      for (const n of [1, 2]) {
        const c = await newCaller(down);
        await upsertAgentLink(down.db, {
          assistantId: c.assistant.id,
          agentId: `agent_unreachable_${n}`,
          phoneNumbers: {},
          now: down.clock.now(),
        });
      }
      const before = down.logs.length;
      mock.timers.enable({ apis: ['setInterval'] });
      try {
        const loop = elevenlabsOf(down).startReconciliation({
          lifecycle: down.services.lifecycle,
          intervalSeconds: 60,
        });
        const passes = () =>
          down.logs.slice(before).filter((l) => l.includes('reconciliation pass failed')).length;
        for (const n of [1, 2]) {
          mock.timers.tick(60_000);
          for (let i = 0; i < 200 && passes() < n; i++) await new Promise((r) => setTimeout(r, 10));
        }
        await loop.stop();
      } finally {
        mock.timers.reset();
      }
      const lines = down.logs.slice(before).map((l) => JSON.parse(l));
      const passLines = lines.filter((l) => String(l.msg).includes('reconciliation pass failed'));
      assert.equal(passLines.length, 2, 'one line a pass');
      assert.match(passLines[0].msg, /could not be reached \(ECONNREFUSED\).*next pass, in 60 s/);
      assert.equal(
        lines.filter((l) => l.provider === 'elevenlabs' && l.operation).length,
        2,
        'one failed request a pass',
      );
      const metrics = await down.request('GET', '/metrics');
      assert.match(metrics.text, /provider_reconciliations_total\{result="failed"\} 2/);
    });

    it('assistants link cannot check, says so, and links nothing', async () => {
      const c = await newCaller(down);
      await assert.rejects(
        down.services.agentLinks.linkAgent({
          assistantId: c.assistant.id,
          agentId: 'agent_real1',
          numbers: [
            { e164: c.assistant.phone_numbers[0] ?? '', phoneNumberId: 'phnum_real1', telephony: 'twilio' },
          ],
        }),
        (e: Error & { code?: string }) =>
          e.code === 'carrier.unavailable' &&
          /Could not check agent agent_real1: .*ECONNREFUSED.*Nothing was linked/.test(e.message),
      );
      assert.equal((await down.services.agentLinks.agentLinks([c.assistant.id])).size, 0);
    });
  });

  describe('the health check, on its own clock', () => {
    async function healthOf(apiKey: string, timeoutMs = 2_000) {
      const logs = captureLogs();
      const clock = new ManualClock('2026-11-26T10:00:00Z');
      const provider = createElevenLabsProvider({
        apiKey,
        baseUrl: fake.baseUrl,
        timeoutMs,
        logger: logs.logger,
        assistantForAgent: async () => null,
      });
      const health = createElevenLabsHealth({
        probe: provider.probe,
        clock,
        logger: logs.logger,
        baseUrl: fake.baseUrl,
      });
      return { health, logs, clock };
    }

    it('a refused key is `unauthorized`, with the status and the body ElevenLabs sent in the log', async () => {
      const { health, logs } = await healthOf('xi-wrong-key');
      const h = await health.check();
      assert.equal(h.state, 'unauthorized');
      assert.match(
        health.warning() ?? '',
        /refuses the API key \(ELEVENLABS_API_KEY\).*answered 401 \(invalid_api_key\)/,
      );
      const failed = logs.lines.find((l) => l.operation === 'agents.list');
      assert.equal(failed?.status, 401);
      assert.match(String(failed?.body), /invalid_api_key/);
      assert.ok(!JSON.stringify(logs.lines).includes('xi-wrong-key'), 'the key is never logged');
    });

    it('logs a change once (bad, then back), not every check; the warning goes when it is back', async () => {
      const { health, logs, clock } = await healthOf(API_KEY);
      const states: ProviderHealth['state'][] = [];
      fake.fault('error_500');
      try {
        for (let i = 0; i < 3; i++) {
          states.push((await health.check()).state);
          clock.advance(60_000);
        }
      } finally {
        fake.fault('none');
      }
      assert.match(
        health.warning() ?? '',
        /answers with errors at .* since 2026-11-26T10:00:00.000Z: The voice provider answered 500/,
      );
      states.push((await health.check()).state);
      states.push((await health.check()).state);
      assert.deepEqual(states, ['failing', 'failing', 'failing', 'ok', 'ok']);
      assert.equal(health.warning(), null);
      const changes = logs.lines.filter((l) => l.state !== undefined && !l.operation);
      assert.deepEqual(
        changes.map((l) => [l.level, l.state]),
        [
          [40, 'failing'],
          [30, 'ok'],
        ],
      );
    });

    it('a slow ElevenLabs is `unreachable` after PROVIDER_TIMEOUT_MS', async () => {
      const { health } = await healthOf(API_KEY, 200);
      fake.slowBy(1_000);
      fake.fault('slow');
      try {
        assert.equal((await health.check()).state, 'unreachable');
      } finally {
        fake.fault('none');
      }
      assert.match(health.warning() ?? '', /did not answer within 200 ms/);
    });
  });

  it('/readyz under the simulator names it, with no provider warning', async () => {
    const sim = await startTestApp();
    try {
      const ready = await sim.request('GET', '/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.provider.name, 'simulator');
      assert.equal(ready.body.warnings?.provider, undefined);
    } finally {
      await sim.close();
    }
  });

  describe('assistants link asks ElevenLabs first', () => {
    /** An assistant with two numbers, an agent and its two numbers in ElevenLabs, assigned to it. */
    async function setUp() {
      seq += 1;
      const c = await newCaller(t);
      const other = '+14155550103';
      const assistant = await newAssistant(t, c.customerId, { phoneNumbers: [AGENT_NUMBER, other] });
      const agentId = `agent_ops${seq}`;
      fake.addAgent(agentId);
      fake.addAgent(`${agentId}_other`);
      fake.addNumber(`phnum_ops${seq}a`, AGENT_NUMBER, { agentId, provider: 'twilio' });
      fake.addNumber(`phnum_ops${seq}b`, other, { agentId, provider: 'sip_trunk' });
      fake.addNumber(`phnum_ops${seq}c`, '+14155550104', { agentId: `${agentId}_other`, provider: 'twilio' });
      fake.addNumber(`phnum_ops${seq}d`, AGENT_NUMBER, { agentId: null, provider: 'twilio' });
      return { assistantId: assistant.id, agentId, other, n: (s: string) => `phnum_ops${seq}${s}` };
    }
    type Num = { e164: string; phoneNumberId: string; telephony: 'twilio' | 'sip_trunk' };

    it('links what ElevenLabs confirms: the agent, each number, its agent and its kind', async () => {
      const s = await setUp();
      const link = await t.services.agentLinks.linkAgent({
        assistantId: s.assistantId,
        agentId: s.agentId,
        numbers: [
          { e164: AGENT_NUMBER, phoneNumberId: s.n('a'), telephony: 'twilio' },
          { e164: s.other, phoneNumberId: s.n('b'), telephony: 'sip_trunk' },
        ],
      });
      assert.equal(link.checked, true);
      assert.deepEqual(Object.keys(link.phoneNumbers).sort(), [AGENT_NUMBER, s.other]);
    });

    it('refuses each mismatch with a sentence naming it, and keeps nothing', async () => {
      const s = await setUp();
      const cases: [string, string, Num, RegExp][] = [
        [
          'no such agent',
          'agent_nobody',
          { e164: AGENT_NUMBER, phoneNumberId: s.n('a'), telephony: 'twilio' },
          /ElevenLabs has no agent agent_nobody/,
        ],
        [
          'no such number',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: 'phnum_nobody', telephony: 'twilio' },
          /ElevenLabs has no phone number phnum_nobody \(given for \+14155550102\)/,
        ],
        [
          'a number of another agent',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: s.n('c'), telephony: 'twilio' },
          new RegExp(`is assigned to agent ${s.agentId}_other in ElevenLabs, not to ${s.agentId}`),
        ],
        [
          'another number than given',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: s.n('c'), telephony: 'twilio' },
          /is \+14155550104 in ElevenLabs, not \+14155550102/,
        ],
        [
          'a number assigned to no agent',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: s.n('d'), telephony: 'twilio' },
          /is assigned to no agent in ElevenLabs: assign it to/,
        ],
        [
          'a SIP trunk number given as Twilio',
          s.agentId,
          { e164: s.other, phoneNumberId: s.n('b'), telephony: 'twilio' },
          /is a sip_trunk number in ElevenLabs, not twilio: add :sip_trunk after its id/,
        ],
        [
          'a Twilio number given as SIP trunk',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: s.n('a'), telephony: 'sip_trunk' },
          /is a twilio number in ElevenLabs, not sip_trunk: leave :sip_trunk off/,
        ],
        [
          'the docs placeholder agent',
          'agent_…',
          { e164: AGENT_NUMBER, phoneNumberId: s.n('a'), telephony: 'twilio' },
          /"agent_…" is a placeholder, not an agent id/,
        ],
        [
          'the docs placeholder number',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: 'phnum_…', telephony: 'twilio' },
          /"phnum_…" \(for \+14155550102\) is a placeholder/,
        ],
        [
          'a placeholder typed with dots',
          s.agentId,
          { e164: AGENT_NUMBER, phoneNumberId: 'phnum_...', telephony: 'twilio' },
          /is a placeholder/,
        ],
        [
          'the help text placeholder',
          '<agentId>',
          { e164: AGENT_NUMBER, phoneNumberId: s.n('a'), telephony: 'twilio' },
          /is a placeholder/,
        ],
      ];
      for (const [name, agentId, number, expected] of cases) {
        await assert.rejects(
          t.services.agentLinks.linkAgent({ assistantId: s.assistantId, agentId, numbers: [number] }),
          (e: Error & { code?: string; issues?: { message: string }[] }) => {
            assert.equal(e.code, 'input.invalid', name);
            assert.ok(
              e.issues?.some((i) => expected.test(i.message)),
              `${name}: ${JSON.stringify(e.issues)}`,
            );
            return true;
          },
        );
      }
      assert.equal((await t.services.agentLinks.agentLinks([s.assistantId])).size, 0);
    });

    it('under the simulator, refuses placeholders and keeps real-looking ids unchecked', async () => {
      const sim = await startTestApp();
      try {
        const c = await newCaller(sim);
        const e164 = c.assistant.phone_numbers[0] ?? '';
        await assert.rejects(
          sim.services.agentLinks.linkAgent({
            assistantId: c.assistant.id,
            agentId: 'agent_…',
            numbers: [{ e164, phoneNumberId: 'phnum_abc', telephony: 'twilio' }],
          }),
          /Invalid|invalid/,
        );
        const link = await sim.services.agentLinks.linkAgent({
          assistantId: c.assistant.id,
          agentId: 'agent_3701k3ttaq12ewp8b7qv5rfyszkz',
          numbers: [{ e164, phoneNumberId: 'phnum_0801k3ttaq12ewp8b7qv5rfyszkz', telephony: 'twilio' }],
        });
        assert.equal(link.checked, false);
      } finally {
        await sim.close();
      }
    });
  });

  it('assistant.not_linked tells the API customer to contact their operator; the operator fix goes to the log', async () => {
    const c = await newCaller(t);
    const before = t.logs.length;
    const res = await placeCall(t, c, { to_number: '+14155550199' });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'assistant.not_linked');
    assert.match(res.body.detail, /not yet connected to the voice provider.*Contact the operator/);
    assert.doesNotMatch(res.body.detail, /cli|assistants link|agent_|phnum_/i);
    const logged = t.logs.slice(before).join('\n');
    assert.match(logged, new RegExp(`assistants link ${c.assistant.id} --agent-id`));
  });

  it('serve: the banner names the provider and warns of an unreachable one and of a webhook nobody can reach', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'elevenlabs-banner-'));
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const running: ChildProcess[] = [];
    let output = { banner: '', log: '' };
    try {
      const server = await serveOn(
        embeddedServe(dir, {
          PROVIDER: 'elevenlabs',
          ELEVENLABS_API_KEY: API_KEY,
          ELEVENLABS_WEBHOOK_SECRET: WEBHOOK_SECRET,
          ELEVENLABS_BASE_URL: baseUrl,
        }),
        running,
      );
      await server.stop();
      output = server;
    } finally {
      for (const child of running) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const { banner, log } = output;
    assert.match(
      banner,
      new RegExp(
        `provider: ElevenLabs Agents at ${baseUrl} \\(see the WARNING below\\); its webhook: https://127\\.0\\.0\\.1:\\d+/provider/elevenlabs/webhook`,
      ),
    );
    assert.match(banner, /WARNING: ElevenLabs cannot be reached at .*\(ECONNREFUSED\)/);
    assert.match(
      banner,
      /WARNING: ElevenLabs cannot reach \/provider\/elevenlabs\/webhook: HOST=127\.0\.0\.1/,
    );
    assert.match(log, /"operation":"agents\.list".*"network_code":"ECONNREFUSED"/);
  });

  describe('the webhook can be reached only as the docs say', () => {
    const cases: [string, Parameters<typeof webhookExposureWarning>[0], RegExp | null][] = [
      [
        'the default HOST, no proxy',
        { host: '127.0.0.1', tlsCertFile: undefined, trustedProxies: [] },
        /HOST=127\.0\.0\.1 listens on this machine only/,
      ],
      [
        '::1, no proxy',
        { host: '::1', tlsCertFile: '/etc/cert.pem', trustedProxies: [] },
        /listens on this machine only/,
      ],
      [
        'all interfaces, self-signed',
        { host: '0.0.0.0', tlsCertFile: undefined, trustedProxies: [] },
        /self-signed development certificate/,
      ],
      [
        'all interfaces with a certificate',
        { host: '0.0.0.0', tlsCertFile: '/etc/cert.pem', trustedProxies: [] },
        null,
      ],
      [
        'loopback behind a trusted proxy',
        { host: '127.0.0.1', tlsCertFile: undefined, trustedProxies: ['127.0.0.1'] },
        null,
      ],
      [
        'all interfaces behind a trusted proxy',
        { host: '0.0.0.0', tlsCertFile: undefined, trustedProxies: ['10.0.0.0/8'] },
        null,
      ],
    ];
    for (const [name, listening, expected] of cases) {
      it(`${name}: ${expected ? 'warns' : 'no warning'}`, () => {
        const warning = webhookExposureWarning(listening);
        if (expected) assert.match(warning ?? '', expected);
        else assert.equal(warning, null);
      });
    }
  });
});
