import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { notify } from '../db/notifications.ts';
import type { CustomerRow } from '../db/tables/customers.table.ts';
import { invalidInput, notFound } from '../errors/app-error.ts';
import { newUuid } from '../ids.ts';
import * as repo from './customers.repository.ts';

export const MAX_RATE_LIMIT_PER_MINUTE = 600;

export type CustomerView = { id: string; name: string; rate_limit_per_minute: number; created_at: string };

const rowToCustomer = (r: CustomerRow): CustomerView => ({
  id: r.id,
  name: r.name,
  rate_limit_per_minute: r.rate_limit_per_minute,
  created_at: r.created_at.toISOString(),
});

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

export function createCustomersService(deps: {
  db: Database;
  clock: Clock;
  defaultRateLimit: number;
  /** Every key carries its customer's ceiling: told at commit that all may have changed (others hear it). */
  onKeysChanged: () => void;
}) {
  const { db, clock } = deps;
  return {
    async createCustomer(input: { name: string; rateLimitPerMinute?: number }): Promise<CustomerView> {
      if (!input.name.trim()) throw invalidInput([{ path: ['name'], message: 'Name must not be empty.' }]);
      const perMinute = input.rateLimitPerMinute ?? deps.defaultRateLimit;
      checkCeiling(perMinute);
      const row = await repo.insertCustomer(db, {
        id: newUuid(),
        name: input.name.trim(),
        rate_limit_per_minute: perMinute,
        created_at: clock.now(),
      });
      return rowToCustomer(row);
    },
    async listCustomers(): Promise<CustomerView[]> {
      return (await repo.listCustomers(db)).map(rowToCustomer);
    },
    async getCustomer(id: string): Promise<CustomerView> {
      const row = await repo.findCustomer(db, id);
      if (!row) throw notFound('Customer');
      return rowToCustomer(row);
    },
    async setRateLimit(id: string, perMinute: number): Promise<CustomerView> {
      checkCeiling(perMinute);
      const row = await db.transaction().execute(async (tx) => {
        const changed = await repo.setRateLimit(tx, id, perMinute);
        // The empty payload: every key (the key cache's announceKeyChange(tx, null), which this floor cannot use).
        if (changed) await notify(tx, 'api_keys_changed');
        return changed;
      });
      if (!row) throw notFound('Customer');
      deps.onKeysChanged();
      return rowToCustomer(row);
    },
    isEmpty: async (): Promise<boolean> => !(await repo.hasAnyCustomer(db)),
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
