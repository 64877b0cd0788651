import type { AssistantsTable } from '../assistants/assistants.table.ts';
import type { CallsTable } from '../calls/calls.table.ts';
import type { CustomersTable } from '../customers/customers.table.ts';
import type { EventsTable } from '../events/events.table.ts';
import type { ApiKeySecretsTable, ApiKeysTable, AuthFailuresTable } from '../keys/keys.table.ts';

/** The whole schema as Kysely sees it; each table's type lives beside its module. */
export interface DB {
  customers: CustomersTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  auth_failures: AuthFailuresTable;
  assistants: AssistantsTable;
  calls: CallsTable;
  events: EventsTable;
}
