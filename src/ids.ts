import { randomBytes, randomUUID, randomUUIDv7 } from 'node:crypto';

export const newUuid = (): string => randomUUID();

/**
 * A UUID whose first 48 bits are the millisecond it was made (version 7), for rows written in bulk and read back in
 * the order they came: the events and the outbox, whose index entries then land on the pages in use (the
 * migration 20261130_1000 makes the deliveries' in SQL).
 */
export const newTimeOrderedUuid = (): string => randomUUIDv7();

/** Webhook subscription ids: `sub_` and 24 hex characters (96 random bits). */
export const newSubscriptionId = (): string => `sub_${randomBytes(12).toString('hex')}`;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** Text message ids: `sms_` and 24 hex characters (96 random bits), like subscription ids. */
export const newMessageId = (): string => `sms_${randomBytes(12).toString('hex')}`;
export const MESSAGE_ID_RE = /^sms_[0-9a-f]{24}$/;
