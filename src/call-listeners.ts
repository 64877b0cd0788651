import { type CallReports, reportingTo } from './calls/index.ts';
import { outboundCallReports } from './outbound/index.ts';
import { webhookCallEvents } from './webhooks/index.ts';

/**
 * Who hears of a call's steps (services and the demo alike): webhooks record its events first, then outbound calls
 * record their callbacks and settle the spend.
 */
export const callListeners = (): CallReports => reportingTo(webhookCallEvents, outboundCallReports);
