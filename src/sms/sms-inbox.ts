import type { Logger } from 'pino';
import { assistantForNumber } from '../assistants/index.ts';
import { formatUsd, toUnits } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database, SmsMessageRow } from '../db/index.ts';
import { newMessageId } from '../ids.ts';
import { settleMessageReservation } from '../outbound/index.ts';
import { recordMessageEvent } from '../webhooks/index.ts';
import * as repo from './messages.repository.ts';
import { optOutKeyword } from './opt-out.ts';
import { measureBody } from './segments.ts';
import { smsReceivedData, smsSentData } from './sms-event-data.ts';
import type { InboundSms, SmsInbox, SmsProvider, SmsStatusReport } from './sms-provider.ts';
import { applyReport, isFinal } from './sms-status.ts';

/**
 * What one provider's reports do to our messages: statuses move a message forward (sms-status.ts) and its final
 * one settles its cost and records `sms.sent`; an inbound message is filed under the assistant that has the number
 * and recorded as `sms.received`. Each in one transaction with its event, so a crash loses or invents nothing.
 */
export function createSmsInbox(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  provider: SmsProvider['name'];
  pricePerSegmentUsd: string;
}): SmsInbox & { unconfirmed(messageId: string, now: Date): Promise<void> } {
  const { db } = deps;

  async function settle(tx: Database, m: SmsMessageRow, report: SmsStatusReport): Promise<SmsMessageRow> {
    const now = deps.clock.now();
    // A message that never left costs nothing; one the carrier took is billed, delivered or not (as Twilio bills).
    const cost = report.status === 'failed' ? '0.0000' : m.cost_usd;
    const final: SmsMessageRow = {
      ...m,
      status: report.status,
      error_code: report.errorCode,
      error_message: report.errorMessage,
      cost_usd: formatUsd(toUnits(cost)),
      final_at: report.at,
      updated_at: now,
    };
    await repo.updateMessage(tx, m.id, {
      status: final.status,
      error_code: final.error_code,
      error_message: final.error_message,
      cost_usd: final.cost_usd,
      final_at: final.final_at,
      updated_at: now,
    });
    if (m.livemode) await settleMessageReservation(tx, m.id, final.cost_usd, now);
    const sent = (await repo.history(tx, m.id)).find((h) => h.status === 'sent');
    await recordMessageEvent(tx, {
      customerId: m.customer_id,
      type: 'sms.sent',
      messageId: m.id,
      livemode: m.livemode,
      data: smsSentData(final, sent?.at ?? (report.status === 'failed' ? null : report.at)),
      occurredAt: report.at,
    });
    return final;
  }

  /** A message whose send timed out, named by a report: it learns its provider id now. */
  async function adoptUnconfirmed(tx: Database, messageId: string, providerMessageId: string) {
    const m = await repo.lockById(tx, messageId);
    if (!m || m.provider !== deps.provider || m.provider_message_id !== null) return undefined;
    await repo.updateMessage(tx, m.id, { provider_message_id: providerMessageId });
    return { ...m, provider_message_id: providerMessageId };
  }

  return {
    async unconfirmed(messageId, now) {
      await db.transaction().execute(async (tx) => {
        const m = await repo.lockById(tx, messageId);
        if (!m || m.final_at !== null || m.provider_message_id !== null) return;
        await repo.recordHistory(tx, m.id, 'failed', null, now);
        await settle(tx, m, {
          providerMessageId: '',
          status: 'failed',
          errorCode: null,
          errorMessage:
            'The SMS provider never confirmed this message and never reported it: it was probably not sent.',
          at: now,
        });
      });
    },

    async statusReported(report) {
      return db.transaction().execute(async (tx) => {
        const m =
          (await repo.lockByProviderId(tx, deps.provider, report.providerMessageId)) ??
          (report.messageId
            ? await adoptUnconfirmed(tx, report.messageId, report.providerMessageId)
            : undefined);
        if (!m) return 'unknown';
        const { moves, history } = applyReport(m.status, report.status);
        if (history) await repo.recordHistory(tx, m.id, report.status, report.errorCode, report.at);
        if (!moves) return history ? 'applied' : 'ignored';
        if (isFinal(report.status)) await settle(tx, m, report);
        else await repo.updateMessage(tx, m.id, { status: report.status, updated_at: deps.clock.now() });
        return 'applied';
      });
    },

    async received(message: InboundSms) {
      const owner = await assistantForNumber(db, message.to, message.test?.accountId);
      if (!owner) {
        deps.logger.warn(
          { provider: deps.provider, provider_message_id: message.providerMessageId, to: message.to },
          'inbound text message to a number no assistant has: dropped',
        );
        return null;
      }
      const livemode = message.test === undefined;
      const measured = measureBody(message.body);
      const row: SmsMessageRow = {
        id: newMessageId(),
        customer_id: message.test?.customerId ?? owner.customer_id,
        api_key_id: null,
        assistant_id: owner.id,
        livemode,
        direction: 'inbound',
        from_number: message.from,
        to_number: message.to,
        body: message.body,
        encoding: measured.encoding,
        segments: measured.segments,
        status: 'received',
        provider: deps.provider,
        provider_message_id: message.providerMessageId,
        error_code: null,
        error_message: null,
        external_id: null,
        metadata: null,
        cost_usd: '0.0000',
        created_at: message.at,
        updated_at: message.at,
        final_at: message.at,
      };
      return db.transaction().execute(async (tx) => {
        const id = await repo.insertInbound(tx, row);
        if (!id) return null;
        const keyword = optOutKeyword(message.body);
        if (keyword === 'stop') await repo.optOut(tx, livemode, message.to, message.from, message.at);
        if (keyword === 'start') await repo.optIn(tx, livemode, message.to, message.from);
        await recordMessageEvent(tx, {
          customerId: row.customer_id,
          type: 'sms.received',
          messageId: id,
          livemode,
          data: smsReceivedData(row),
          occurredAt: message.at,
        });
        return { messageId: id };
      });
    },
  };
}
