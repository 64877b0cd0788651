import { insertCalls } from '../calls/calls.repository.ts';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import type { NewCall } from '../db/tables/calls.table.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { rng } from '../provider/random.ts';
import type { TestApp } from './test-app.ts';

let seedCounter = 0;

/** Assistants for a customer, through the service (so they are valid). */
export async function makeAssistants(t: Pick<TestApp, 'services'>, customerId: string, count = 2) {
  const made: AssistantRow[] = [];
  for (let i = 0; i < count; i++) {
    made.push(
      await t.services.assistants.createAssistant({
        customerId,
        name: `Assistant ${i + 1}`,
        voiceId: 'aria',
        phoneNumbers: [`+1415555010${i % 10}`],
      }),
    );
  }
  return made;
}

/** Realistic calls (demo generator) spread over `days` before the test clock's now. */
export async function makeCalls(
  t: Pick<TestApp, 'db' | 'clock'>,
  customerId: string,
  assistants: AssistantRow[],
  count: number,
  days = 10,
): Promise<NewCall[]> {
  seedCounter += 1;
  const rows = generateCalls({
    customerId,
    assistants,
    count,
    end: t.clock.now(),
    days,
    random: rng(1000 + seedCounter),
  });
  await insertCalls(t.db, rows);
  return rows;
}

/** Newest first, ties by id descending: the order GET /calls promises. */
export const expectedOrder = (rows: readonly NewCall[]): string[] =>
  [...rows]
    .sort((a, b) => {
      const ta = new Date(a.started_at as Date).getTime();
      const tb = new Date(b.started_at as Date).getTime();
      return tb - ta || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    })
    .map((r) => r.id);

export type Walk = { ids: string[]; cursors: (string | null)[]; requests: number };

/**
 * Reads a whole list page by page, with `cursor` or with `page`, calling `between` after each page
 * (to insert calls while paging). Fails on any non-200 answer.
 */
export async function walkCalls(
  t: Pick<TestApp, 'request'>,
  key: string,
  options: {
    mode: 'cursor' | 'page';
    query?: string;
    limit?: number;
    between?: (n: number) => Promise<void>;
  },
): Promise<Walk> {
  const walk: Walk = { ids: [], cursors: [], requests: 0 };
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const params = new URLSearchParams(options.query ?? '');
    params.set('limit', String(options.limit ?? 10));
    if (options.mode === 'cursor' && cursor) params.set('cursor', cursor);
    if (options.mode === 'page') params.set('page', String(page));
    const res = await t.request('GET', `/api/v1/calls?${params}`, { key });
    if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${res.text}`);
    walk.requests += 1;
    walk.ids.push(...res.body.data.map((x: { id: string }) => x.id));
    walk.cursors.push(res.body.next_cursor);
    cursor = res.body.next_cursor;
    if (cursor === null) return walk;
    await options.between?.(page);
  }
  throw new Error('the walk did not end');
}
