import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dryRunAlias } from './dry-run-alias.ts';

const PLACE = '/api/v1/outbound-calls';
const DRY = '/api/v1/outbound-calls/dry-run';

describe('the dry run alias (POST /outbound-calls?dry_run=true)', () => {
  const routed: [string, string, string][] = [
    ['the earlier form', `${PLACE}?dry_run=true`, DRY],
    ['with a trailing slash', `${PLACE}/?dry_run=true`, DRY],
    ['percent-encoded, as the query parser reads it', `${PLACE}?dry%5Frun=tru%65`, DRY],
    ['other parameters kept as sent', `${PLACE}?a=%20x&dry_run=true&b=1`, `${DRY}?a=%20x&b=1`],
    ['dry_run=false: placement, without the parameter', `${PLACE}?dry_run=false`, PLACE],
    ['dry_run=false among others', `${PLACE}?dry_run=false&force=1`, `${PLACE}?force=1`],
  ];
  for (const [what, url, to] of routed) {
    it(`routes ${what}: ${url} → ${to}`, () => {
      assert.equal(dryRunAlias('POST', url), to);
    });
  }

  const untouched: [string, string, string][] = [
    ['no query', 'POST', PLACE],
    ['no dry_run', 'POST', `${PLACE}?force=1`],
    ['another value (placement refuses it: 422)', 'POST', `${PLACE}?dry_run=yes`],
    ['upper case', 'POST', `${PLACE}?dry_run=TRUE`],
    ['an empty value', 'POST', `${PLACE}?dry_run=`],
    ['the parameter twice', 'POST', `${PLACE}?dry_run=true&dry_run=true`],
    ['true and false', 'POST', `${PLACE}?dry_run=true&dry_run=false`],
    ['another method', 'GET', `${PLACE}?dry_run=true`],
    ['another path', 'POST', '/api/v1/webhook-subscriptions?dry_run=true'],
    ['a path that only begins the same', 'POST', `${PLACE}x?dry_run=true`],
    ['the dry run itself', 'POST', `${DRY}?dry_run=true`],
  ];
  for (const [what, method, url] of untouched) {
    it(`leaves ${what} alone: ${method} ${url}`, () => {
      assert.equal(dryRunAlias(method, url), url);
    });
  }
});
