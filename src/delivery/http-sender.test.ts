import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errors } from 'undici';
import { describeSendError, TIMEOUT_ERROR } from './http-sender.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

// Every way the one deadline can fire counts as the same timeout (the adaptive limit halves on it); every other
// failure keeps its own code, so the delivery log tells a dead receiver from a slow one.
describe('describeSendError', () => {
  for (const [name, error] of [
    [
      'the request signal (AbortSignal.timeout)',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    ],
    ['an abort', new DOMException('This operation was aborted', 'AbortError')],
    ['the agent’s headers timeout', new errors.HeadersTimeoutError()],
    ['the agent’s body timeout', new errors.BodyTimeoutError()],
    ['the connector’s connect timeout', new errors.ConnectTimeoutError()],
  ] as const) {
    it(`${name} is a timeout`, () => assert.equal(describeSendError(error), TIMEOUT_ERROR));
  }

  for (const [name, error, expected] of [
    [
      'a refused connection',
      withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'),
      'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    ],
    ['a closed socket', new errors.SocketError('other side closed'), 'UND_ERR_SOCKET: other side closed'],
    [
      'a certificate error',
      withCode('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'),
      'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    ],
    ['an error without a code', new Error('no route'), 'no route'],
    ['a thrown value that is not an error', 'boom', 'boom'],
  ] as const) {
    it(`${name} is not a timeout`, () => assert.equal(describeSendError(error), expected));
  }
});
