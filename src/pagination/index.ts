export type { CursorIds, CursorScope } from './cursor.ts';
export { CURSOR_EXAMPLE, createCursorCodec, MAX_CURSOR_LENGTH, positionOfRow, SERIAL_IDS } from './cursor.ts';
export type { Instant } from './instant.ts';
export { instantFromMicros, parseInstant, TIMESTAMP_HINT } from './instant.ts';
export {
  enumParam,
  idParams,
  instantParam,
  intParam,
  queryParam,
  tokenParam,
  uuidParam,
} from './query-params.ts';
