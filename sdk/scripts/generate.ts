/**
 * `npm run sdk:generate`: serves the API on a throwaway test database, fetches its OpenAPI document and
 * writes the SDK's types (sdk/src/schema.d.ts) and the document itself (sdk/openapi.json).
 */
import { writeFileSync } from 'node:fs';
import { startTestApp } from '../../src/testing/test-app.ts';
import { DOCUMENT_FILE, renderDocument, renderSchema, SCHEMA_FILE } from './render-schema.ts';

const t = await startTestApp();
try {
  const res = await t.request('GET', '/api/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
  writeFileSync(SCHEMA_FILE, await renderSchema(res.body));
  writeFileSync(DOCUMENT_FILE, renderDocument(res.body));
  console.log(`wrote ${SCHEMA_FILE} and ${DOCUMENT_FILE}`);
} finally {
  await t.close();
}
process.exit(0);
