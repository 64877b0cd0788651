import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { invalidInput, notFound } from '../errors/app-error.ts';
import { newUuid } from '../ids.ts';
import type { CustomerRow } from './customers.table.ts';

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

export function createCustomersService(deps: { db: Database; clock: Clock; defaultRateLimit: number }) {
  const { db, clock } = deps;
  return {
    async createCustomer(input: { name: string; rateLimitPerMinute?: number }): Promise<CustomerView> {
      if (!input.name.trim()) throw invalidInput([{ path: ['name'], message: 'Name must not be empty.' }]);
      const perMinute = input.rateLimitPerMinute ?? deps.defaultRateLimit;
      checkCeiling(perMinute);
      const row = await db
        .insertInto('customers')
        .values({
          id: newUuid(),
          name: input.name.trim(),
          rate_limit_per_minute: perMinute,
          created_at: clock.now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return rowToCustomer(row);
    },
    async listCustomers(): Promise<CustomerView[]> {
      const rows = await db.selectFrom('customers').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(rowToCustomer);
    },
    async getCustomer(id: string): Promise<CustomerView> {
      const row = await db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Customer');
      return rowToCustomer(row);
    },
    async setRateLimit(id: string, perMinute: number): Promise<CustomerView> {
      checkCeiling(perMinute);
      const row = await db
        .updateTable('customers')
        .set({ rate_limit_per_minute: perMinute })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('Customer');
      return rowToCustomer(row);
    },
    async isEmpty(): Promise<boolean> {
      return !(await db.selectFrom('customers').select('id').limit(1).executeTakeFirst());
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
