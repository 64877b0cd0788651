import type { Logger } from 'pino';
import { allAssistantNumbers as assistantNumbersAll, findAssistant } from '../assistants/index.ts';
import { formatUsd, toUnits } from '../calls/index.ts';
import { type Clock, utcDay } from '../clock.ts';
import { customerMaxDailyCap } from '../customers/index.ts';
import type { Database, SmsMessageRow } from '../db/index.ts';
import { AppError, notFound } from '../errors/index.ts';
import { MESSAGE_ID_RE, newMessageId } from '../ids.ts';
import { lockKeyForSpend, type Principal } from '../keys/index.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  failIdempotencyKey,
  insertMessageReservation,
  numberChecks,
  removeMessageReservation,
  requestHash,
  spendCheck,
  spentOnDay,
  throwFirstFailure,
} from '../outbound/index.ts';
import type { OutboundLimits } from '../outbound-limits.ts';
import type { Signer } from '../signer.ts';
import * as repo from './messages.repository.ts';
import { measureBody } from './segments.ts';
import { bodyCheck, optOutCheck, reachableCheck, type SmsCheck, senderChecks } from './send-checks.ts';
import type { SendSmsBody } from './sms.schema.ts';
import { type MessageView, rowToMessage, type SmsDryRunView } from './sms.views.ts';
import { createSmsInbox } from './sms-inbox.ts';
import { listMessages, type MessageListQuery } from './sms-list.ts';
import type { SmsProvider, SmsProviderError } from './sms-provider.ts';

export type SmsDeps = {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** SMS_PROVIDER, guarded: what live messages go through. */
  provider: SmsProvider;
  /** The simulator, guarded: what test-mode messages go through, whatever SMS_PROVIDER says. */
  testProvider: SmsProvider;
  pricePerSegmentUsd: string;
  outboundDefaults: OutboundLimits;
  /** Signs the list's cursors. */
  signer: Signer;
};

export type SendResult = { status: number; body: MessageView; replayed: boolean };

/** The message's cost in units of 1/10,000 USD: every segment at the price. */
export const costUnits = (segments: number, pricePerSegmentUsd: string): bigint =>
  BigInt(segments) * toUnits(pricePerSegmentUsd);

/** What a provider's refusal or failure answers the client with; nothing was sent in any of these. */
function sendFailure(error: SmsProviderError, keyed: boolean): AppError {
  if (error.code === 'refused') {
    const code = {
      opted_out: 'sms.recipient_opted_out',
      unreachable: 'sms.number_unreachable',
      sender_unavailable: 'sms.sender_unavailable',
    } as const;
    const carrier = error.providerCode ? ` (carrier error ${error.providerCode})` : '';
    return new AppError(code[error.reason], `${error.detail}${carrier}`);
  }
  const retry = keyed
    ? 'Retry with the same Idempotency-Key: it can never send the message twice.'
    : 'Send an Idempotency-Key when you retry, so the message can never be sent twice.';
  if (error.code === 'busy')
    return new AppError('carrier.busy', `The SMS provider is rate-limiting; nothing was sent. ${retry}`, {
      headers: { 'retry-after': String(error.retryAfterSeconds ?? 1) },
    });
  return new AppError(
    'carrier.unavailable',
    `The SMS provider is unavailable; nothing was sent or charged. ${retry}`,
  );
}

export function createSmsService(deps: SmsDeps) {
  const { db, clock } = deps;
  const providerFor = (livemode: boolean) => (livemode ? deps.provider : deps.testProvider);

  /** Every check of a send, in order; `tx` reads the spend under the key's lock when sending. */
  async function checksOf(tx: Database, p: Principal, body: SendSmsBody, lockedCap?: string) {
    const now = clock.now();
    const live = p.mode === 'live';
    const measured = measureBody(body.body);
    const assistant = await findAssistant(tx, body.assistant_id);
    const sender = senderChecks(assistant, p.accountId, body.from_number);
    const numbers = numberChecks(body.to_number, p.allowedCountries, p.outboundLimits, 'Messages');
    const optedOut = sender.from ? await repo.isOptedOut(tx, live, sender.from, body.to_number) : false;
    const estimate = live ? costUnits(measured.segments, deps.pricePerSegmentUsd) : 0n;
    const used = await spentOnDay(tx, p.keyId, utcDay(now));
    const limits = lockedCap === undefined ? p.outboundLimits : { maxDailyCapUsd: lockedCap };
    const spend = spendCheck(
      p.dailySpendCapUsd,
      limits,
      used,
      now,
      estimate,
      'this message reserves $%s until its final status',
    );
    const checks: SmsCheck[] = [
      bodyCheck(body.body, measured),
      ...sender.checks,
      ...(numbers.checks as SmsCheck[]),
      reachableCheck(body.to_number),
      optOutCheck(optedOut, sender.from, body.to_number),
      spend.check as SmsCheck,
    ];
    return {
      checks,
      measured,
      from: sender.from,
      assistant,
      country: numbers.country,
      spend: spend.spend,
      estimate,
    };
  }

  /** Claim the key, check everything, reserve the estimate and record the queued message: one transaction. */
  async function reserve(p: Principal, body: SendSmsBody, idemKey: string | null) {
    const now = clock.now();
    return db.transaction().execute(async (tx) => {
      let id = newMessageId();
      if (idemKey) {
        const claim = await claimIdempotencyKey(tx, {
          customerId: p.customerId,
          key: idemKey,
          hash: requestHash({ operation: 'sms.send', body }),
          resourceId: id,
          now,
        });
        if (claim.kind === 'replay') return claim;
        id = claim.resourceId;
        // A failed send resumed: its row went with the failure, so it is made again under the same id.
        await repo.deleteMessage(tx, id);
      }
      // The key's row lock orders concurrent sends and placements on one key: their reservations in turn.
      const key = await lockKeyForSpend(tx, p.keyId);
      if (!key) throw new AppError('auth.revoked', 'The API key no longer exists.');
      const maxCap = (await customerMaxDailyCap(tx, key.customer_id)) ?? deps.outboundDefaults.maxDailyCapUsd;
      const c = await checksOf(tx, { ...p, dailySpendCapUsd: key.daily_spend_cap_usd }, body, maxCap);
      throwFirstFailure(c.checks);
      if (!c.assistant || !c.from) throw new AppError('resource.not_found', 'Assistant not found.');
      const live = p.mode === 'live';
      const row: repo.NewMessage = {
        id,
        customer_id: p.customerId,
        api_key_id: p.keyId,
        assistant_id: c.assistant.id,
        livemode: live,
        direction: 'outbound',
        from_number: c.from,
        to_number: body.to_number,
        body: body.body,
        encoding: c.measured.encoding,
        segments: c.measured.segments,
        status: 'queued',
        provider: providerFor(live).name,
        provider_message_id: null,
        error_code: null,
        error_message: null,
        external_id: body.external_id ?? null,
        metadata: body.metadata ?? null,
        cost_usd: formatUsd(c.estimate),
        created_at: now,
        updated_at: now,
        final_at: null,
      };
      await repo.insertMessage(tx, row);
      if (live)
        await insertMessageReservation(tx, {
          message_id: id,
          api_key_id: p.keyId,
          customer_id: p.customerId,
          day: utcDay(now),
          amount_usd: formatUsd(c.estimate),
          now,
        });
      return { kind: 'sending' as const, row };
    });
  }

  const inbox = (provider: SmsProvider['name']) => createSmsInbox({ ...deps, provider });

  return {
    /** POST /sms/send: at most one message per Idempotency-Key, never past the key's checks. */
    async send(p: Principal, body: SendSmsBody, idemKey: string | null): Promise<SendResult> {
      const reserved = await reserve(p, body, idemKey);
      if (reserved.kind === 'replay')
        return { status: reserved.status, body: reserved.body as MessageView, replayed: true };
      const { row } = reserved;
      const sent = await providerFor(row.livemode).send({
        messageId: row.id,
        from: row.from_number,
        to: row.to_number,
        body: row.body,
        ...(row.livemode ? {} : { testMode: true }),
      });
      const now = clock.now();
      const key = idemKey ? { customerId: p.customerId, key: idemKey } : null;
      // A timeout may have sent it: the message stays queued (its status callback, or reconciliation, tells),
      // and a retry replays this answer instead of sending again.
      const unconfirmed = !sent.ok && sent.error.code === 'timeout';
      const view = await db.transaction().execute(async (tx) => {
        const current = await repo.lockById(tx, row.id);
        if (!current) return null;
        if (!sent.ok && !unconfirmed) {
          await removeMessageReservation(tx, row.id);
          await repo.deleteMessage(tx, row.id);
          if (sent.error.code === 'refused' && sent.error.reason === 'opted_out')
            await repo.optOut(tx, row.livemode, row.from_number, row.to_number, now);
          if (key) await failIdempotencyKey(tx, key, now);
          return null;
        }
        let updated: SmsMessageRow = current;
        // A status callback can overtake the send's own answer; then the message already has its id and status.
        if (sent.ok && current.provider_message_id === null) {
          await repo.updateMessage(tx, row.id, {
            provider_message_id: sent.value.providerMessageId,
            updated_at: now,
          });
          updated = { ...current, provider_message_id: sent.value.providerMessageId };
        }
        const view = rowToMessage(updated);
        if (key) await completeIdempotencyKey(tx, key, 201, view, now);
        return view;
      });
      if (view && sent.ok)
        await inbox(providerFor(row.livemode).name).statusReported({
          providerMessageId: sent.value.providerMessageId,
          status: sent.value.status,
          errorCode: null,
          errorMessage: null,
          at: now,
        });
      if (view) return { status: 201, body: view, replayed: false };
      if (sent.ok) throw new Error(`message ${row.id} vanished while it was sent`);
      throw sendFailure(sent.error, key !== null);
    },

    /** POST /sms/send/dry-run: every check, nothing reserved or sent. */
    async dryRun(p: Principal, body: SendSmsBody): Promise<SmsDryRunView> {
      const c = await checksOf(db, p, body);
      return {
        allowed: c.checks.every((x) => x.passed),
        checks: c.checks,
        to_number: body.to_number,
        country: c.country,
        from_number: c.from,
        encoding: c.measured.encoding,
        segments: c.measured.segments,
        spend: c.spend,
        livemode: p.mode === 'live',
      };
    },

    /** GET /sms/messages/{id}: the message and its status history; another customer's is missing. */
    async get(customerId: string, id: string) {
      const row = MESSAGE_ID_RE.test(id) ? await repo.findMessage(db, customerId, id) : undefined;
      if (!row) throw notFound('Message');
      const history = await repo.history(db, id);
      return {
        ...rowToMessage(row),
        status_history: history.map((h) => ({
          status: h.status,
          error_code: h.error_code,
          at: h.at.toISOString(),
        })),
      };
    },

    list: (customerId: string, q: MessageListQuery) => listMessages(deps, customerId, q),

    /** The operator's `sms simulate-inbound`: a live text to an assistant's number, through the simulator. */
    simulateInbound: (m: { to: string; from: string; body: string }) =>
      inbox(deps.testProvider.name).received({
        providerMessageId: `SMsim${newMessageId().slice(4)}`,
        ...m,
        at: clock.now(),
      }),

    /** Every assistant's numbers: what the simulator can text from (`sms numbers`). */
    simulatedNumbers: () => assistantNumbersAll(db),

    /** POST /test/inbound-sms: a simulated text to one of the account's numbers, filed under its test data. */
    async receiveTest(
      p: Principal,
      body: { to_number: string; from_number?: string | undefined; body: string },
    ) {
      const received = await inbox(deps.testProvider.name).received({
        providerMessageId: `SMtest${newMessageId().slice(4)}`,
        from: body.from_number ?? '+14155550123',
        to: body.to_number,
        body: body.body,
        at: clock.now(),
        test: { customerId: p.customerId, accountId: p.accountId },
      });
      if (!received) throw new AppError('resource.not_found', 'None of your assistants has this number.');
      return received.messageId;
    },

    /** Where a provider reports statuses and inbound messages (its webhook routes, the simulator's tick). */
    inbox,

    /** The providers, for the operator's tools. */
    providerFor,

    /** Each carrier messages may have gone through, with its inbox: what reconciliation asks. */
    carriers() {
      const live = deps.provider;
      const test = deps.testProvider;
      return {
        [test.name]: { provider: test, inbox: inbox(test.name) },
        [live.name]: { provider: live, inbox: inbox(live.name) },
      };
    },
  };
}

export type SmsService = ReturnType<typeof createSmsService>;
