import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import type { VoiceProvider } from '../provider/index.ts';
import type { CallReports } from './call-reports.ts';

/** What the steps of a call's life work with: post-processing, reconciliation and the lifecycle service. */
export type LifecycleDeps = {
  db: Database;
  clock: Clock;
  provider: VoiceProvider;
  /** Test-mode calls' provider (the simulator) when PROVIDER is another; see providerForMode. */
  testProvider?: VoiceProvider | undefined;
  reports: CallReports;
  logger?: Logger | undefined;
};
