import { createHash } from 'node:crypto';
import { invalidInput } from '../errors/index.ts';
import type { Signer } from '../signer.ts';
import { type Instant, instantFromMicros } from './instant.ts';

/** Where a keyset page ends: the last row's sort key (timestamp, then id). */
export type KeysetPosition = { at: Instant; id: string };

/** The values a cursor is bound to: the customer and every filter of the list. */
export type CursorScope = readonly (string | null)[];

/** A row's position from what the list queries select: its id and its timestamp in microseconds (text). */
export function positionOfRow(row: { id: string; position_micros: string }): KeysetPosition {
  const at = instantFromMicros(BigInt(row.position_micros));
  if (!at) throw new Error(`Row ${row.id} has a timestamp outside 1970-9999.`);
  return { at, id: row.id };
}

/** How a list's row ids fit the cursor's 16 id bytes. */
export type CursorIds = { toBytes(id: string): Buffer; fromBytes(bytes: Buffer): string };

/** UUIDs, as their 16 bytes. */
export const UUID_IDS: CursorIds = {
  toBytes: (id) => Buffer.from(id.replace(/-/g, ''), 'hex'),
  fromBytes(bytes) {
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
};

/** `bigint generated always as identity` ids (decimal text), as a 64-bit number after 8 zero bytes. */
export const SERIAL_IDS: CursorIds = {
  toBytes(id) {
    const bytes = Buffer.alloc(16);
    bytes.writeBigInt64BE(BigInt(id), 8);
    return bytes;
  },
  fromBytes: (bytes) => String(bytes.readBigInt64BE(8)),
};

const VERSION = 1;
// version (1) + microseconds (8) + id (16) + scope digest (16)
const PAYLOAD_BYTES = 41;
export const MAX_CURSOR_LENGTH = 200;

const digest = (scope: CursorScope): Buffer =>
  createHash('sha256').update(JSON.stringify(scope)).digest().subarray(0, 16);

const cursorError = (message: string) => invalidInput([{ path: ['query', 'cursor'], message }]);

/**
 * Opaque, tamper-evident keyset cursors: `<payload>.<mac>`, both base64url. The payload holds the
 * last row's position and a digest of the scope (customer and filters) it was issued for; the MAC
 * (server secret, one purpose per list) makes any edit detectable. A cursor never leaves its list:
 * another purpose, customer or filter set fails `decode` with 422, never a query.
 */
export function createCursorCodec(signer: Signer, purpose: string, ids: CursorIds = UUID_IDS) {
  return {
    encode(position: KeysetPosition, scope: CursorScope): string {
      const payload = Buffer.alloc(PAYLOAD_BYTES);
      payload.writeUInt8(VERSION, 0);
      payload.writeBigInt64BE(position.at.micros, 1);
      ids.toBytes(position.id).copy(payload, 9);
      digest(scope).copy(payload, 25);
      const body = payload.toString('base64url');
      return `${body}.${signer.sign(purpose, body)}`;
    },

    /** The position after which the next page starts; throws `input.invalid` on ["query","cursor"]. */
    decode(token: string, scope: CursorScope): KeysetPosition {
      const [body = '', mac = '', ...rest] = token.split('.');
      if (rest.length > 0 || !body || !mac || !signer.verify(purpose, body, mac)) {
        throw cursorError('Not a cursor issued for this list (it may be truncated or altered).');
      }
      const payload = Buffer.from(body, 'base64url');
      if (payload.length !== PAYLOAD_BYTES || payload.readUInt8(0) !== VERSION) {
        throw cursorError('This cursor is from another API version; start again from the first page.');
      }
      if (!payload.subarray(25).equals(digest(scope))) {
        throw cursorError(
          'This cursor was issued for other filters; repeat the filters of the request that returned it.',
        );
      }
      const at = instantFromMicros(payload.readBigInt64BE(1));
      if (!at) throw cursorError('Not a cursor issued for this list.');
      return { at, id: ids.fromBytes(payload.subarray(9, 25)) };
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;

/** A cursor as the API makes them: opaque, signed, bound to the filters it was made for. */
export const CURSOR_EXAMPLE = 'eyJ0IjoxNzk1MjU4ODAwMDAwMDAwLCJpIjoiMWQ1YTNjOWUifQ.q3T9vX2mB0Lr8cJp';
