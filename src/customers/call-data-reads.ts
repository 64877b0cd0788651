import type { Database } from '../db/index.ts';
import { findCallDataSettings } from './call-data.repository.ts';

/**
 * Whether the customer (a test twin: its customer) has its transcripts and summaries masked: what the modules that
 * store them (transcripts/, calls/ post-processing) ask before they write.
 */
export async function redactsCallData(db: Database, customerId: string): Promise<boolean> {
  return (await findCallDataSettings(db, customerId))?.redact_transcripts ?? false;
}
