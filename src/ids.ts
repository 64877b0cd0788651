import { randomBytes, randomUUID } from 'node:crypto';

export const newUuid = (): string => randomUUID();

/** Webhook subscription ids: `sub_` and 24 hex characters (96 random bits). */
export const newSubscriptionId = (): string => `sub_${randomBytes(12).toString('hex')}`;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);
