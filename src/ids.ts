import { randomBytes, randomUUID } from 'node:crypto';

export const newUuid = (): string => randomUUID();

/** Webhook subscription ids: `sub_` and 24 hex characters (96 random bits). */
export const newSubscriptionId = (): string => `sub_${randomBytes(12).toString('hex')}`;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** Text message ids: `sms_` and 24 hex characters (96 random bits), like subscription ids. */
export const newMessageId = (): string => `sms_${randomBytes(12).toString('hex')}`;
export const MESSAGE_ID_RE = /^sms_[0-9a-f]{24}$/;
