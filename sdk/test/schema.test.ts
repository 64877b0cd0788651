import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../src/testing/test-app.ts';
import { DOCUMENT_FILE, renderDocument, renderSchema, SCHEMA_FILE } from '../scripts/render-schema.ts';

const STALE = 'is stale: run `npm run sdk:generate` and commit the result';

describe('the SDK’s generated types', () => {
  let t: TestApp;
  let doc: Record<string, unknown>;
  before(async () => {
    t = await startTestApp();
    doc = (await t.request('GET', '/api/v1/openapi.json')).body;
  });
  after(() => t.close());

  it('match the OpenAPI document the server serves now (sdk/src/schema.d.ts)', async () => {
    assert.ok(
      readFileSync(SCHEMA_FILE, 'utf8') === (await renderSchema(doc)),
      `sdk/src/schema.d.ts ${STALE}`,
    );
  });

  it('ship the same document (sdk/openapi.json)', () => {
    assert.ok(readFileSync(DOCUMENT_FILE, 'utf8') === renderDocument(doc), `sdk/openapi.json ${STALE}`);
  });
});
