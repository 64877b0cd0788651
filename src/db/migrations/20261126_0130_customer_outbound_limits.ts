import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/** The operator's outer bounds on a customer's outbound calls; null follows the environment's defaults. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table customers
       add column outbound_countries text[],
       add column outbound_max_daily_cap_usd numeric(12, 2) check (outbound_max_daily_cap_usd >= 0)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table customers drop column outbound_countries, drop column outbound_max_daily_cap_usd`,
  ]);
}
