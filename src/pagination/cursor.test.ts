import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { createSigner } from '../signer.ts';
import { createCursorCodec, SERIAL_IDS } from './cursor.ts';
import { instantFromMicros } from './instant.ts';

const signer = createSigner('cursor-test-secret-0123456789abcdef');
const codec = createCursorCodec(signer, 'calls-cursor');
const at = instantFromMicros(1_767_225_600_123_456n);
const position = { at: at ?? { micros: 0n, iso: '' }, id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' };
const scope = ['customer-1', 'inbound', null, null, null];

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'input.invalid');
    assert.deepEqual(
      error.issues?.map((i) => i.path),
      [['query', 'cursor']],
    );
    return error.issues?.[0]?.message ?? '';
  }
  assert.fail('expected a refusal');
}

describe('keyset cursors', () => {
  it('round-trip the position exactly, as URL-safe text', () => {
    const token = codec.encode(position, scope);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.ok(token.length < 120);
    assert.deepEqual(codec.decode(token, scope), position);
  });

  it('carry serial (bigint identity) ids exactly, up to the largest', () => {
    const serial = createCursorCodec(signer, 'serial-cursor', SERIAL_IDS);
    for (const id of ['1', '44', '9007199254740993', '9223372036854775807']) {
      assert.deepEqual(serial.decode(serial.encode({ ...position, id }, scope), scope), { ...position, id });
    }
  });

  it('are bound to their scope: customer and every filter', () => {
    const token = codec.encode(position, scope);
    for (const other of [
      ['customer-2', 'inbound', null, null, null],
      ['customer-1', null, null, null, null],
      ['customer-1', 'inbound', 'a', null, null],
      ['customer-1', 'inbound', null, '1', null],
      ['customer-1', 'inbound', null, null, '1'],
    ]) {
      assert.match(
        refusal(() => codec.decode(token, other)),
        /other filters/,
      );
    }
  });

  it('are bound to their purpose and to the server secret', () => {
    const token = codec.encode(position, scope);
    assert.throws(() => createCursorCodec(signer, 'assistants-cursor').decode(token, scope), AppError);
    const otherServer = createCursorCodec(
      createSigner('another-secret-0123456789abcdef0000'),
      'calls-cursor',
    );
    assert.throws(() => otherServer.decode(token, scope), AppError);
  });

  it('refuse any edit; a signed cursor of an unknown version asks to start again', () => {
    const token = codec.encode(position, scope);
    const [body = ''] = token.split('.');
    const payload = Buffer.from(body, 'base64url');
    payload.writeUInt8(2, 0);
    const edited = payload.toString('base64url');
    refusal(() => codec.decode(`${edited}.${token.split('.')[1]}`, scope));
    // Properly signed but of an unknown version: told to start again.
    assert.match(
      refusal(() => codec.decode(`${edited}.${signer.sign('calls-cursor', edited)}`, scope)),
      /version/,
    );
    refusal(() => codec.decode('', scope));
    refusal(() => codec.decode('.', scope));
  });
});
