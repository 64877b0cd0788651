/** The event types a subscription may name; the list lives with the events table's type, which is made of it. */
export { EVENT_TYPES, type EventType } from '../db/index.ts';
