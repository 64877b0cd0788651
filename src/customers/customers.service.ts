import type { Clock } from '../clock.ts';
import type { CustomerRow, Database } from '../db/index.ts';
import { notify } from '../db/index.ts';
import { invalidInput, notFound } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import {
  formatCap,
  normalizeRegions,
  type OutboundLimits,
  resolveLimits,
  valueIssues,
} from '../outbound-limits.ts';
import * as callData from './call-data.repository.ts';
import {
  type CallDataSettings,
  KEEP_FOREVER,
  type RetentionBounds,
  type RetentionChoice,
  retentionChoiceIssues,
  retentionDays,
  storedRetention,
} from './call-data.ts';
import { ensureTestTwin, findCustomer } from './customer-reads.ts';
import * as repo from './customers.repository.ts';

export const MAX_RATE_LIMIT_PER_MINUTE = 600;

export type CustomerView = {
  id: string;
  name: string;
  rate_limit_per_minute: number;
  /** The regions its keys may call, and whether that is the operator's default (OUTBOUND_COUNTRIES_DEFAULT). */
  outbound_countries: string[];
  outbound_countries_is_default: boolean;
  /** The largest daily cap a key may have, and whether that is the default (OUTBOUND_MAX_DAILY_CAP_DEFAULT). */
  outbound_max_daily_cap_usd: string;
  outbound_max_daily_cap_is_default: boolean;
  created_at: string;
};

/** A change of outbound limits: a value, null to follow the default again, absent to keep. */
export type OutboundLimitsChange = { countries?: readonly string[] | null; maxDailyCapUsd?: string | null };

function checkCeiling(perMinute: number): void {
  if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_RATE_LIMIT_PER_MINUTE) {
    throw invalidInput([
      {
        path: ['rate_limit_per_minute'],
        message: `Must be a whole number from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}.`,
      },
    ]);
  }
}

function limitsColumns(change: OutboundLimitsChange) {
  const countries = change.countries && normalizeRegions(change.countries);
  const issues = valueIssues(
    { countries: countries ?? [], capUsd: change.maxDailyCapUsd },
    { countries: 'outbound_countries', cap: 'outbound_max_daily_cap_usd' },
  );
  if (issues.length > 0) throw invalidInput(issues);
  return {
    ...(countries === undefined ? {} : { outbound_countries: countries }),
    ...(change.maxDailyCapUsd === undefined
      ? {}
      : {
          outbound_max_daily_cap_usd:
            change.maxDailyCapUsd === null ? null : formatCap(change.maxDailyCapUsd),
        }),
  };
}

export function createCustomersService(deps: {
  db: Database;
  clock: Clock;
  defaultRateLimit: number;
  /** OUTBOUND_COUNTRIES_DEFAULT and OUTBOUND_MAX_DAILY_CAP_DEFAULT: the limits of customers without their own. */
  outboundDefaults: OutboundLimits;
  /** Every key carries its customer's ceiling and limits: told at commit that all may have changed (others hear it). */
  onKeysChanged: () => void;
  /** CALL_RETENTION_DAYS_*: the retention of customers without their own, and the choices they may make. */
  callRetention?: RetentionBounds | undefined;
}) {
  const { db, clock } = deps;
  const bounds = deps.callRetention ?? KEEP_FOREVER;

  const rowToCustomer = (r: CustomerRow): CustomerView => {
    const limits = resolveLimits(r, deps.outboundDefaults);
    return {
      id: r.id,
      name: r.name,
      rate_limit_per_minute: r.rate_limit_per_minute,
      outbound_countries: [...limits.countries],
      outbound_countries_is_default: r.outbound_countries === null,
      outbound_max_daily_cap_usd: limits.maxDailyCapUsd,
      outbound_max_daily_cap_is_default: r.outbound_max_daily_cap_usd === null,
      created_at: r.created_at.toISOString(),
    };
  };

  /** A change every key of the customer carries: announced to every key cache. */
  async function changeCustomer(id: string, changes: Parameters<typeof repo.updateCustomer>[2]) {
    const row = await db.transaction().execute(async (tx) => {
      const changed = await repo.updateCustomer(tx, id, changes);
      // The empty payload: every key (the key cache's announceKeyChange(tx, null), which this floor cannot use).
      if (changed) await notify(tx, 'api_keys_changed');
      return changed;
    });
    if (!row) throw notFound('Customer', { table: 'customers', id });
    deps.onKeysChanged();
    return rowToCustomer(row);
  }

  async function callDataSettings(id: string): Promise<CallDataSettings> {
    const row = await callData.findCallDataSettings(db, id);
    if (!row) throw notFound('Customer', { table: 'customers', id });
    return {
      call_retention_days: retentionDays(row.call_retention_days, bounds),
      call_retention_is_default: row.call_retention_days === null,
      call_retention_min_days: bounds.minDays,
      call_retention_max_days: bounds.maxDays,
      call_retention_default_days: retentionDays(null, bounds),
      redact_transcripts: row.redact_transcripts,
    };
  }

  async function changeCallData(id: string, changes: Parameters<typeof callData.updateCallDataSettings>[2]) {
    if (!(await callData.updateCallDataSettings(db, id, changes)))
      throw notFound('Customer', { table: 'customers', id });
    return callDataSettings(id);
  }

  async function getCustomer(id: string): Promise<CustomerView> {
    const row = await findCustomer(db, id);
    if (!row) throw notFound('Customer', { table: 'customers', id });
    return rowToCustomer(row);
  }

  return {
    async createCustomer(input: { name: string; rateLimitPerMinute?: number }): Promise<CustomerView> {
      if (!input.name.trim()) throw invalidInput([{ path: ['name'], message: 'Name must not be empty.' }]);
      const perMinute = input.rateLimitPerMinute ?? deps.defaultRateLimit;
      checkCeiling(perMinute);
      const row = await repo.insertCustomer(db, {
        id: newUuid(),
        name: input.name.trim(),
        rate_limit_per_minute: perMinute,
        outbound_countries: null,
        outbound_max_daily_cap_usd: null,
        live_customer_id: null,
        call_retention_days: null,
        redact_transcripts: false,
        created_at: clock.now(),
      });
      return rowToCustomer(row);
    },
    async listCustomers(): Promise<CustomerView[]> {
      return (await repo.listCustomers(db)).map(rowToCustomer);
    },
    getCustomer,
    /**
     * Deletes every test-mode object of the customer (its test twin's calls, transcripts, events, deliveries,
     * subscriptions, idempotency keys and usage, by the foreign keys' cascade) and gives its test keys a fresh,
     * empty twin. Live data is not touched. False when the customer never had test data.
     */
    async purgeTestData(id: string): Promise<{ customerId: string; purged: boolean }> {
      const customer = await findCustomer(db, id);
      if (!customer || customer.live_customer_id) throw notFound('Customer', { table: 'customers', id });
      const purged = await db.transaction().execute(async (tx) => {
        const twin = await repo.deleteTestTwin(tx, id);
        if (!twin) return false;
        await ensureTestTwin(tx, id, newUuid(), clock.now());
        // Every key cache holds its test keys with the old twin's id.
        await notify(tx, 'api_keys_changed');
        return true;
      });
      if (purged) deps.onKeysChanged();
      return { customerId: id, purged };
    },

    async setRateLimit(id: string, perMinute: number): Promise<CustomerView> {
      checkCeiling(perMinute);
      return changeCustomer(id, { rate_limit_per_minute: perMinute });
    },
    /**
     * The operator's bounds on the customer's keys. Lowering them narrows what existing keys can do at once: every
     * check at call time holds a key to the overlap of its own allowlist and cap with these.
     */
    async setOutboundLimits(id: string, change: OutboundLimitsChange): Promise<CustomerView> {
      const columns = limitsColumns(change);
      if (Object.keys(columns).length === 0) return getCustomer(id);
      return changeCustomer(id, columns);
    },
    isEmpty: async (): Promise<boolean> => !(await repo.hasAnyCustomer(db)),

    /** How long the customer's calls are kept and whether its transcripts are masked (a test twin: its customer's). */
    callDataSettings,
    /**
     * The customer's retention of calls: days within the operator's bounds, "forever" where no longest is set, or
     * "default". The next retention run deletes what the new period no longer covers.
     */
    async setCallRetention(id: string, choice: RetentionChoice): Promise<CallDataSettings> {
      const issues = retentionChoiceIssues(choice, bounds);
      if (issues.length > 0) throw invalidInput(issues);
      return changeCallData(id, { call_retention_days: storedRetention(choice) });
    },
    /** Masking of phone numbers, e-mail addresses and card numbers in transcripts stored from now on. */
    async setTranscriptRedaction(id: string, on: boolean): Promise<CallDataSettings> {
      return changeCallData(id, { redact_transcripts: on });
    },
    /**
     * Every customer whose calls are not kept for ever (test twins with their customer's period) and its period in
     * days: what the retention loop deletes, customer by customer.
     */
    async retentionTargets(): Promise<{ customerId: string; days: number }[]> {
      const everyone = bounds.defaultDays !== null || bounds.maxDays !== null;
      const rows = await callData.retentionChoices(db, { chosenOnly: !everyone });
      return rows.flatMap((r) => {
        const days = retentionDays(r.chosen, bounds);
        return days === null ? [] : [{ customerId: r.id, days }];
      });
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
