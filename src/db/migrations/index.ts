import type { Migration } from 'kysely/migration';
import * as foundation from './20261121_0001_foundation.ts';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
};
