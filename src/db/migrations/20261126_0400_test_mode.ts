import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Test mode (issue 37). A customer's test data lives under a customer row of its own, its test twin
 * (`live_customer_id` names the customer it is the twin of), so every query that is scoped by customer keeps live
 * and test data apart as it keeps two customers apart. A key says its mode (`svc_test_` keys are `test`) and stays
 * its customer's; a call says its own (`livemode`), read by billing and by its REST and webhook forms, and so
 * does each event (its envelope's `livemode`) and each webhook subscription.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table customers add column live_customer_id uuid references customers(id) on delete cascade`,
    `create unique index customers_one_test_twin on customers (live_customer_id) where live_customer_id is not null`,
    `alter table api_keys add column mode text not null default 'live' check (mode in ('live', 'test'))`,
    `alter table calls add column livemode boolean not null default true`,
    `alter table events add column livemode boolean not null default true`,
    `alter table webhook_subscriptions add column livemode boolean not null default true`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table webhook_subscriptions drop column livemode`,
    `alter table events drop column livemode`,
    `alter table calls drop column livemode`,
    `alter table api_keys drop column mode`,
    `drop index customers_one_test_twin`,
    `alter table customers drop column live_customer_id`,
  ]);
}
