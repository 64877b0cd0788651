import type { Migration } from 'kysely/migration';
import * as foundation from './20261121_0001_foundation.ts';
import * as events from './20261121_0002_events.ts';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
  '20261121_0002_events': events,
};
