import type { Database } from '../db/index.ts';
import { notFound } from '../errors/index.ts';
import { createCursorCodec, positionOfRow } from '../pagination/index.ts';
import type { Signer } from '../signer.ts';
import { callFilterScope, callListFilter } from './calls.filter.ts';
import { CALLS_DEFAULT_LIMIT, type ListCallsQuery } from './calls.query.ts';
import * as repo from './calls.read.repository.ts';
import { type CallDetailView, type CallView, rowToCall, rowToCallDetail } from './calls.views.ts';

export type CallsPage = { data: CallView[]; next_cursor: string | null };

export function createCallsService(deps: { db: Database; signer: Signer }) {
  const { db } = deps;
  const cursors = createCursorCodec(deps.signer, 'calls-cursor');

  return {
    /**
     * One page of a customer's calls, newest first (`started_at desc, id desc`). `cursor` (keyset) wins
     * over `page` (offset = page × limit). `next_cursor` continues after this page; null at the end.
     */
    async listCalls(customerId: string, q: ListCallsQuery): Promise<CallsPage> {
      // The cursor is bound to the customer and to every filter, so it can only continue its own list.
      const scope = callFilterScope(customerId, q);
      const limit = q.limit ?? CALLS_DEFAULT_LIMIT;
      const filter = callListFilter(customerId, q);
      const after = q.cursor ? cursors.decode(q.cursor, scope) : null;
      const page = q.cursor ? 0 : (q.page ?? 0);
      // One row more than asked tells whether another page follows, without counting. `page` is an offset:
      // the page follows the last row before it, found in the same statement.
      const rows =
        page > 0
          ? await repo.listCallRowsAfter(db, filter, page * limit - 1, limit + 1)
          : await repo.listCallRows(
              db,
              filter,
              after ? { atIso: after.at.iso, id: after.id } : null,
              limit + 1,
            );
      const data = rows.slice(0, limit);
      const last = data.at(-1);
      const more = rows.length > limit && last !== undefined;
      return {
        data: data.map(rowToCall),
        next_cursor: more ? cursors.encode(positionOfRow(last), scope) : null,
      };
    },

    /** A call of this customer; another customer's call is indistinguishable from a missing one. */
    async getCall(customerId: string, id: string): Promise<CallDetailView> {
      const row = await repo.findCallRow(db, customerId, id);
      if (!row) throw notFound('Call');
      return rowToCallDetail(row);
    },
  };
}

export type CallsService = ReturnType<typeof createCallsService>;
