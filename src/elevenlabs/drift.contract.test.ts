import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeAnswer, type FakeElevenLabs, startFakeElevenLabs } from '../testing/fake-elevenlabs.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { createElevenLabsProvider, type ElevenLabsProvider } from './adapter.ts';

/**
 * ElevenLabs changes its schema often and the SDK, generated from it, refuses a whole answer for one required field
 * it lacks (elevenlabs/elevenlabs-js#232). Each answer we read, through the real SDK against the fake: every field
 * we do not need removed, then renamed, one at a time, must still be read; every field we need removed must fail
 * with a message naming it.
 */
const API_KEY = 'xi-drift-key';
const AGENT = 'agent_drift';
const NUMBER_ID = 'phnum_drift';
const E164 = '+14155550102';

type Path = (string | number)[];
type Body = Record<string, unknown>;

function at(body: unknown, path: Path): Body {
  let node = body as Body;
  for (const step of path) node = node[step as string] as Body;
  return node;
}
/** The answer with the field at `path` removed, or renamed to `<name>_renamed`. */
function without(body: Body, path: Path, rename = false): Body {
  const parent = at(body, path.slice(0, -1));
  const key = String(path.at(-1));
  if (rename) parent[`${key}_renamed`] = parent[key];
  delete parent[key];
  return body;
}
const named = (path: Path) =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[');

/** Every key of the objects at these paths of one answer, except the ones in `needed`. */
function fieldsOf(body: Body, parents: Path[], needed: string[]): Path[] {
  return parents.flatMap((p) =>
    Object.keys(at(body, p))
      .map((k) => [...p, k])
      .filter((path) => !needed.includes(named(path))),
  );
}

describe('answers ElevenLabs changed: what we use is read, whatever else they lack or add', () => {
  let fake: FakeElevenLabs;
  let provider: ElevenLabsProvider;
  const logs = captureLogs();
  let conversationId = '';
  /** A provider of its own (drift is logged once per process and provider). */
  const newProvider = () =>
    createElevenLabsProvider({
      apiKey: API_KEY,
      baseUrl: fake.baseUrl,
      timeoutMs: 5_000,
      logger: logs.logger,
      assistantForAgent: async () => null,
    });

  /** A placement of call `callId` from the agent's number, through the SDK. */
  const place = (callId: string) =>
    provider.placeCall({
      callId,
      assistantId: 'a',
      language: 'en-US',
      from: E164,
      to: '+14155550199',
      variables: {},
      maxDurationSeconds: 600,
      agent: { agentId: AGENT, phoneNumberId: NUMBER_ID, telephony: 'twilio' },
    });

  before(async () => {
    await import('@elevenlabs/elevenlabs-js');
    fake = await startFakeElevenLabs({ apiKey: API_KEY });
    fake.addAgent(AGENT);
    fake.addNumber(NUMBER_ID, E164, { agentId: AGENT, provider: 'twilio' });
    provider = newProvider();
    const placed = await place('7d1c8f7e-1111-4a4a-9b9b-000000000001');
    assert.ok(placed.ok);
    conversationId = placed.value.providerCallId;
    fake.progress(conversationId, 'answer');
    fake.progress(conversationId, 'hang_up');
    fake.progress(conversationId, 'analysed');
  });
  after(() => fake.close());

  /** One kind of answer: how to read it, what of it we need, and what reading it gave before any change. */
  type Case = {
    kind: FakeAnswer;
    read: () => Promise<{ ok: boolean; detail?: string; value?: unknown }>;
    /** Objects whose keys are tried one by one. */
    parents: Path[];
    /** Fields we need (by wire name); each removed must fail naming it. */
    needed: string[];
  };
  const result = <T>(r: { ok: true; value: T } | { ok: false; error: { detail: string } }) =>
    r.ok ? { ok: true, value: r.value } : { ok: false, detail: r.error.detail };

  const cases: Case[] = [
    {
      kind: 'conversation',
      read: async () => result(await provider.getConversation(conversationId)),
      parents: [[], ['metadata'], ['metadata', 'phone_call'], ['analysis'], ['transcript', 0]],
      needed: [
        'agent_id',
        'conversation_id',
        'status',
        'metadata',
        'metadata.start_time_unix_secs',
        'metadata.call_duration_secs',
        'metadata.phone_call.direction',
        'metadata.phone_call.agent_number',
        'metadata.phone_call.external_number',
        'transcript[0].role',
        'transcript[0].time_in_call_secs',
      ],
    },
    {
      kind: 'conversations',
      read: async () => result(await provider.conversationsSince(AGENT, 0)),
      parents: [[], ['conversations', 0]],
      needed: ['conversations', 'conversations[0].conversation_id'],
    },
    {
      kind: 'agent',
      read: async () => result(await provider.agent(AGENT)),
      parents: [[]],
      needed: ['agent_id'],
    },
    {
      kind: 'agents',
      read: async () => result(await provider.probe()),
      parents: [[]],
      needed: ['agents'],
    },
    {
      kind: 'phone_number',
      read: async () => result(await provider.phoneNumber(NUMBER_ID)),
      parents: [[], ['assigned_agent']],
      needed: ['phone_number_id', 'phone_number', 'provider', 'assigned_agent.agent_id'],
    },
  ];

  /** The answer as the fake sends it now, read raw (what `reshape` receives). */
  async function wireOf(kind: FakeAnswer, read: () => Promise<unknown>): Promise<Body> {
    let seen: Body | null = null;
    fake.reshape(kind, (b) => {
      seen = structuredClone(b);
      return b;
    });
    await read();
    fake.reshape(kind, null);
    assert.ok(seen, `the fake answered ${kind}`);
    return seen;
  }

  for (const c of cases) {
    it(`${c.kind}: every field we do not use, removed or renamed, still reads as before`, async () => {
      const baseline = await c.read();
      assert.equal(baseline.ok, true, baseline.detail);
      const wire = await wireOf(c.kind, c.read);
      const optional = fieldsOf(wire, c.parents, c.needed);
      assert.ok(optional.length >= 1);
      for (const path of optional) {
        for (const rename of [false, true]) {
          fake.reshape(c.kind, (b) => without(b as Body, path, rename));
          const got = await c.read();
          fake.reshape(c.kind, null);
          assert.equal(got.ok, true, `${named(path)} ${rename ? 'renamed' : 'removed'}: ${got.detail}`);
        }
      }
    });

    it(`${c.kind}: each field we need, removed, fails with a message naming it`, async () => {
      for (const field of c.needed) {
        const path = field
          .split(/\.|\[(\d+)\]/)
          .filter(Boolean)
          .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
        fake.reshape(c.kind, (b) => without(b as Body, path));
        const got = await c.read();
        fake.reshape(c.kind, null);
        assert.equal(got.ok, false, `${field} removed must fail`);
        assert.match(got.detail ?? '', new RegExp(`${field.replace(/[[\]]/g, '\\$&')} is missing`), field);
      }
    });
  }

  it('the placement: without the carrier id or the message it is placed; without its conversation, it is a timeout (it may have rung)', async () => {
    for (const [i, field] of (['callSid', 'message'] as const).entries()) {
      fake.reshape('placement', (b) => without(b as Body, [field]));
      const got = await place(`7d1c8f7e-1111-4a4a-9b9b-00000000010${i}`);
      assert.equal(got.ok, true, `${field} removed`);
    }
    fake.reshape('placement', (b) => without(b as Body, ['conversation_id']));
    const lost = await place('7d1c8f7e-1111-4a4a-9b9b-000000000103');
    fake.reshape('placement', null);
    assert.equal(lost.ok, false);
    assert.equal(
      lost.ok ? null : lost.error.code,
      'timeout',
      'left to reconciliation, never placed again blindly',
    );
    assert.match(
      lost.ok ? '' : lost.error.detail,
      /conversation_id is not what we expect|conversation_id is missing/,
    );
  });

  it('logs a drift once per field and operation, and what it read with our model', async () => {
    logs.lines.length = 0;
    const fresh = newProvider();
    fake.reshape('conversation', (b) => without(b as Body, ['has_auxiliary_audio']));
    for (let i = 0; i < 3; i++) assert.equal((await fresh.getConversation(conversationId)).ok, true);
    fake.reshape('conversation', null);
    const drift = logs.lines.filter(
      (l) => l.operation === 'conversations.get' && String(l.problem).includes('has_auxiliary_audio'),
    );
    assert.equal(drift.length, 1, JSON.stringify(logs.lines));
    assert.equal(drift[0]?.level, 40);
    assert.match(String(drift[0]?.msg), /does not fit the SDK's model/);
  });
});
