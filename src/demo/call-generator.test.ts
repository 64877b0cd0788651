import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import { rng } from '../provider/random.ts';
import { archivedInput, buildScript } from '../simulator/simulator-script.ts';
import { generateCalls } from './call-generator.ts';

const assistant = (id: string, language: string): AssistantRow =>
  ({ id, language, phone_numbers: ['+14155550101'] }) as AssistantRow;

const FRENCH = /\b(bonjour|merci|rendez-vous|au revoir|mardi)\b/i;
const INBOUND_GREETING = /thanks for calling|merci de votre appel/i;

describe('demo calls read right', () => {
  const english = assistant('a-en', 'en-US');
  const french = assistant('a-fr', 'fr-CA');
  const reminders = assistant('a-reminders', 'en-US');
  const rows = generateCalls({
    customerId: 'c',
    assistants: [english, french, reminders],
    count: 600,
    end: new Date('2026-11-01T00:00:00Z'),
    days: 30,
    random: rng(7),
    outboundShare: { [reminders.id]: 0.95 },
  });
  const languageOf = new Map([english, french, reminders].map((a) => [a.id, a.language]));
  // What the dashboard and GET /calls/{id}/transcript show: the simulator reads an archived conversation back
  // from its id alone (simulator-calls.ts readConversation).
  const transcriptOf = (conversationId: string) => {
    const input = archivedInput(conversationId);
    assert.ok(input, conversationId);
    const script = buildScript(conversationId, input);
    return { text: script.turns.map((t) => t.message).join('\n'), summary: script.details.summary };
  };
  const answered = rows.filter((r) => r.conversation_id);

  it('covers both directions and both languages', () => {
    const kinds = new Set(answered.map((r) => `${r.direction}/${languageOf.get(r.assistant_id)}`));
    assert.deepEqual([...kinds].sort(), [
      'inbound/en-US',
      'inbound/fr-CA',
      'outbound/en-US',
      'outbound/fr-CA',
    ]);
    assert.ok(answered.length > 300);
  });

  it("every transcript is in its assistant's language", () => {
    for (const r of answered) {
      const { text } = transcriptOf(r.conversation_id ?? '');
      const frenchLine = languageOf.get(r.assistant_id)?.startsWith('fr');
      assert.equal(
        FRENCH.test(text),
        frenchLine,
        `${r.direction} call on ${languageOf.get(r.assistant_id)}: ${text}`,
      );
    }
  });

  it("every transcript fits the call's direction: only inbound calls open with thanks for calling", () => {
    for (const r of answered) {
      const { text } = transcriptOf(r.conversation_id ?? '');
      assert.equal(INBOUND_GREETING.test(text), r.direction === 'inbound', `${r.direction}: ${text}`);
    }
  });

  it('every greeting names nobody when the call gave no name, in every language (no English stand-in)', () => {
    const spanish = assistant('a-es', 'es-ES');
    const calls = generateCalls({
      customerId: 'c',
      assistants: [english, french, spanish],
      count: 300,
      end: new Date('2026-11-01T00:00:00Z'),
      days: 30,
      random: rng(11),
      outboundShare: { [english.id]: 0.5, [french.id]: 0.5, [spanish.id]: 0.5 },
    }).filter((r) => r.conversation_id);
    const greetings = new Map<string, Set<string>>();
    for (const r of calls) {
      const language = [english, french, spanish].find((a) => a.id === r.assistant_id)?.language ?? '';
      const first = transcriptOf(r.conversation_id ?? '').text.split('\n')[0] ?? '';
      assert.doesNotMatch(first, /\bthere\b|[{}]/, `${language}: ${first}`);
      assert.match(
        first,
        /^(Hi|Bonjour|Thanks for calling|Merci de votre appel)[,.]/,
        `${language}: ${first}`,
      );
      const seen = greetings.get(language) ?? new Set();
      greetings.set(language, seen.add(`${r.direction}: ${first.split(/[,.]/)[0]}`));
    }
    assert.deepEqual(Object.fromEntries([...greetings].map(([l, g]) => [l, [...g].sort()])), {
      'en-US': ['inbound: Thanks for calling', 'outbound: Hi'],
      'es-ES': ['inbound: Thanks for calling', 'outbound: Hi'],
      'fr-CA': ['inbound: Merci de votre appel', 'outbound: Bonjour'],
    });
  });

  it('the stored summary is the summary of that transcript', () => {
    for (const r of answered) assert.equal(r.summary, transcriptOf(r.conversation_id ?? '').summary);
  });

  it('a reminder line mostly calls out; unanswered calls have no conversation', () => {
    const own = rows.filter((r) => r.assistant_id === reminders.id);
    const outbound = own.filter((r) => r.direction === 'outbound').length;
    assert.ok(outbound / own.length > 0.85, `${outbound} of ${own.length}`);
    for (const r of rows.filter((x) => x.status !== 'completed')) {
      assert.equal(r.conversation_id, null);
      assert.equal(r.has_transcript, false);
    }
  });
});
