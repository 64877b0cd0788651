import type { Database, SmsStatus } from '../db/index.ts';
import { type CursorIds, createCursorCodec, instantFromMicros } from '../pagination/index.ts';
import type { Signer } from '../signer.ts';
import * as repo from './messages.repository.ts';
import { rowToMessage } from './sms.views.ts';

export type MessageListQuery = {
  assistant_id?: string;
  api_key_id?: string;
  direction?: 'inbound' | 'outbound';
  status?: SmsStatus;
  limit?: number;
  cursor?: string;
};

/** Message ids in the cursor's 16 id bytes: their 12 random bytes after 4 zero bytes. */
const MESSAGE_IDS: CursorIds = {
  toBytes: (id) => Buffer.concat([Buffer.alloc(4), Buffer.from(id.slice(4), 'hex')]),
  fromBytes: (bytes) => `sms_${bytes.subarray(4).toString('hex')}`,
};

const codecs = new WeakMap<Signer, ReturnType<typeof createCursorCodec>>();
const codecOf = (signer: Signer) => {
  let codec = codecs.get(signer);
  if (!codec) {
    codec = createCursorCodec(signer, 'sms-messages', MESSAGE_IDS);
    codecs.set(signer, codec);
  }
  return codec;
};

/** GET /sms/messages: newest first, keyset cursor bound to the customer and the filters (spec 2.4's conventions). */
export async function listMessages(
  deps: { db: Database; signer: Signer },
  customerId: string,
  q: MessageListQuery,
) {
  const codec = codecOf(deps.signer);
  const limit = q.limit ?? 25;
  const scope = [
    customerId,
    q.assistant_id ?? null,
    q.api_key_id ?? null,
    q.direction ?? null,
    q.status ?? null,
  ];
  const after = q.cursor ? codec.decode(q.cursor, scope) : null;
  const rows = await repo.listMessages(
    deps.db,
    {
      customerId,
      assistantId: q.assistant_id,
      apiKeyId: q.api_key_id,
      direction: q.direction,
      status: q.status,
    },
    after ? { atIso: after.at.iso, id: after.id } : null,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const lastAt = last ? instantFromMicros(BigInt(last.created_at.getTime()) * 1000n) : null;
  return {
    data: page.map(rowToMessage),
    next_cursor:
      rows.length > limit && last && lastAt ? codec.encode({ at: lastAt, id: last.id }, scope) : null,
  };
}
