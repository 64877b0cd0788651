import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

const VOICES = ['alloy', 'aria', 'breeze', 'cove', 'ember', 'juniper', 'maple', 'orion', 'sage', 'vale'];

/**
 * Seeding (the CLI's `seed`): `perCustomer` assistants for each customer of the temp table `seed_customers`, made by
 * the database itself. Leaves them in the temp table `seed_assistants (n, id, customer_id, k, phone, key_id)` of the caller's
 * pinned connection, numbered from 0, for the calls seeded after them (`key_id`, null here, is the key the caller
 * chooses for their API-placed calls).
 */
export async function seedAssistants(conn: Database, o: { perCustomer: number; now: Date }): Promise<void> {
  await sql`create temp table seed_assistants as
      select c.n * ${o.perCustomer}::int + k - 1 as n, gen_random_uuid() as id, c.id as customer_id, k,
        '+1' || (array['212', '415', '312', '617', '206', '416', '604', '514', '303', '512'])[1 + (c.n % 10)::int]
          || '55501' || lpad(((c.n * 7 + k) % 100)::text, 2, '0') as phone, null::uuid as key_id
      from seed_customers c cross join generate_series(1, ${o.perCustomer}::int) k`.execute(conn);
  await sql`create unique index on seed_assistants (n)`.execute(conn);
  await sql`insert into assistants (id, customer_id, name, description, language, voice_id, is_active,
        phone_numbers, created_at, updated_at)
      select id, customer_id,
        (array['Front Desk', 'Reminders', 'Support', 'Billing', 'After Hours', 'Accueil'])[1 + (k - 1) % 6]
          || case when k > 6 then ' ' || k else '' end,
        (array['Answers inbound calls and books appointments.', 'Calls customers to confirm appointments.',
          'Handles support questions.', 'Answers billing questions.', 'Takes messages after hours.',
          'Répond aux appels en français.'])[1 + (k - 1) % 6],
        case when (k - 1) % 6 = 5 then 'fr-CA' else 'en-US' end,
        (${VOICES}::text[])[1 + (n % 10)::int], true, array[phone],
        ${o.now}::timestamptz - k * interval '1 minute', ${o.now}::timestamptz - k * interval '1 minute'
      from seed_assistants`.execute(conn);
}
