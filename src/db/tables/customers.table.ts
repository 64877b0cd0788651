import type { Selectable } from 'kysely';

export interface CustomersTable {
  id: string;
  name: string;
  rate_limit_per_minute: number;
  created_at: Date;
}
export type CustomerRow = Selectable<CustomersTable>;
