import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parserProblem } from './error-handler.ts';

const parserError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('parserProblem: what the HTTP parser refused, as the problem to answer', () => {
  const cases: [
    string,
    Error & { code?: string },
    { status: number; code: string; detail: RegExp } | null,
  ][] = [
    ['a reset connection: nobody to answer', parserError('ECONNRESET', 'read ECONNRESET'), null],
    [
      'headers too large',
      parserError('HPE_HEADER_OVERFLOW', 'Parse Error: Header overflow'),
      { status: 431, code: 'input.headers_too_large', detail: /headers/ },
    ],
    [
      'chunk extensions too large',
      parserError('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'Parse Error: Chunk extensions overflow'),
      { status: 413, code: 'input.too_large', detail: /chunk extensions/ },
    ],
    [
      'headers not received in time',
      parserError('ERR_HTTP_REQUEST_TIMEOUT', 'Request timeout'),
      { status: 408, code: 'input.timeout', detail: /in time/ },
    ],
    [
      'any other parser error, named in the detail',
      parserError('HPE_INVALID_HEADER_TOKEN', 'Parse Error: Invalid header value char'),
      { status: 400, code: 'input.malformed', detail: /: Parse Error: Invalid header value char$/ },
    ],
    [
      'an error not from the parser, whose message is not repeated',
      parserError('EPIPE', 'write EPIPE at 10.0.0.5'),
      { status: 400, code: 'input.malformed', detail: /^The request could not be read as HTTP\/1\.1\.$/ },
    ],
  ];
  for (const [what, error, expected] of cases) {
    it(what, () => {
      const problem = parserProblem(error);
      if (expected === null) return assert.equal(problem, null);
      assert.equal(problem?.status, expected.status);
      assert.equal(problem?.code, expected.code);
      assert.match(problem?.message ?? '', expected.detail);
    });
  }
});
