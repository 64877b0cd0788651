import type { ColumnType } from 'kysely';

/** The one row identifying the server secret the database's keys are hashed with. */
export interface ServerSecretFingerprintTable {
  id: ColumnType<number, never, never>;
  fingerprint: string;
  recorded_at: ColumnType<Date, Date | undefined, Date>;
}
