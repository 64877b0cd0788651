import { sql } from 'kysely';
import type { Database, SmsMessageRow, SmsStatus } from '../db/index.ts';

export type NewMessage = Omit<SmsMessageRow, 'cost_usd' | 'livemode'> & {
  cost_usd: string;
  livemode: boolean;
};

export async function insertMessage(tx: Database, row: NewMessage): Promise<void> {
  await tx
    .insertInto('sms_messages')
    .values({ ...row, metadata: row.metadata === null ? null : JSON.stringify(row.metadata) })
    .execute();
  await recordHistory(tx, row.id, row.status, row.error_code, row.created_at);
}

/** An inbound message, once: null when the provider's id was seen before (a redelivered webhook). */
export async function insertInbound(tx: Database, row: NewMessage): Promise<string | null> {
  const inserted = await tx
    .insertInto('sms_messages')
    .values({ ...row, metadata: null })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_message_id'])
        .where('provider_message_id', 'is not', null)
        .doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return null;
  await recordHistory(tx, row.id, row.status, null, row.created_at);
  return inserted.id;
}

export async function recordHistory(
  tx: Database,
  messageId: string,
  status: SmsStatus,
  errorCode: string | null,
  at: Date,
): Promise<void> {
  await tx
    .insertInto('sms_status_history')
    .values({ message_id: messageId, status, error_code: errorCode, at })
    .onConflict((oc) => oc.columns(['message_id', 'status']).doNothing())
    .execute();
}

export async function history(db: Database, messageId: string) {
  return (
    db
      .selectFrom('sms_status_history')
      .select(['status', 'error_code', 'at'])
      .where('message_id', '=', messageId)
      .orderBy('at')
      // Reports of one instant (a callback carries no time of its own) in the order a message goes through them.
      .orderBy(
        sql`array_position(array['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'], status)`,
      )
      .execute()
  );
}

export async function findMessage(db: Database, customerId: string, id: string) {
  return db
    .selectFrom('sms_messages')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The message a provider's report names, locked for the change it brings. */
export async function lockByProviderId(tx: Database, provider: string, providerMessageId: string) {
  return tx
    .selectFrom('sms_messages')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_message_id', '=', providerMessageId)
    .forUpdate()
    .executeTakeFirst();
}

export async function lockById(tx: Database, id: string) {
  return tx.selectFrom('sms_messages').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateMessage(
  tx: Database,
  id: string,
  set: Partial<
    Pick<
      SmsMessageRow,
      | 'status'
      | 'provider_message_id'
      | 'error_code'
      | 'error_message'
      | 'cost_usd'
      | 'final_at'
      | 'updated_at'
    >
  >,
): Promise<void> {
  await tx.updateTable('sms_messages').set(set).where('id', '=', id).execute();
}

/** A message the provider refused or never took: it leaves no trace but the refusal the client got. */
export async function deleteMessage(tx: Database, id: string): Promise<void> {
  await tx.deleteFrom('sms_messages').where('id', '=', id).execute();
}

export type MessageFilter = {
  customerId: string;
  assistantId?: string | undefined;
  apiKeyId?: string | undefined;
  direction?: 'inbound' | 'outbound' | undefined;
  status?: SmsStatus | undefined;
};

/** One page, newest first, after the cursor's (created_at, id) when given. */
export async function listMessages(
  db: Database,
  f: MessageFilter,
  after: { atIso: string; id: string } | null,
  limit: number,
) {
  let q = db.selectFrom('sms_messages').selectAll().where('customer_id', '=', f.customerId);
  if (f.assistantId) q = q.where('assistant_id', '=', f.assistantId);
  if (f.apiKeyId) q = q.where('api_key_id', '=', f.apiKeyId);
  if (f.direction) q = q.where('direction', '=', f.direction);
  if (f.status) q = q.where('status', '=', f.status);
  if (after) q = q.where(sql<boolean>`(created_at, id) < (${after.atIso}::timestamptz, ${after.id})`);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Outbound messages with no final status, sent before `before`: reconciliation asks their provider. */
export async function unsettled(db: Database, before: Date, limit: number) {
  return db
    .selectFrom('sms_messages')
    .select(['id', 'provider', 'provider_message_id', 'livemode', 'created_at'])
    .where('final_at', 'is', null)
    .where('direction', '=', 'outbound')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function isOptedOut(db: Database, livemode: boolean, sender: string, recipient: string) {
  const row = await db
    .selectFrom('sms_opt_outs')
    .select('opted_out_at')
    .where('livemode', '=', livemode)
    .where('sender', '=', sender)
    .where('recipient', '=', recipient)
    .executeTakeFirst();
  return row !== undefined;
}

export async function optOut(tx: Database, livemode: boolean, sender: string, recipient: string, at: Date) {
  await tx
    .insertInto('sms_opt_outs')
    .values({ livemode, sender, recipient, opted_out_at: at })
    .onConflict((oc) => oc.columns(['livemode', 'sender', 'recipient']).doNothing())
    .execute();
}

export async function optIn(tx: Database, livemode: boolean, sender: string, recipient: string) {
  await tx
    .deleteFrom('sms_opt_outs')
    .where('livemode', '=', livemode)
    .where('sender', '=', sender)
    .where('recipient', '=', recipient)
    .execute();
}
