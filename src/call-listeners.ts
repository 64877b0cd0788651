import { type CallReports, reportingTo } from './calls/call-reports.ts';
import { outboundCallReports } from './outbound/call-reports.ts';
import { webhookCallEvents } from './webhooks/call-events.ts';

/** Who hears of a call's steps: webhooks record its events first, then outbound calls send callbacks and settle spend. */
export const callListeners = (): CallReports => reportingTo(webhookCallEvents, outboundCallReports);
