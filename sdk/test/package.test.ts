import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import semver from 'semver';

const read = (file: string) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8'));
const sdk = read('../package.json');

/**
 * Node versions that load an ES module with `require()` without a flag (Node's changelogs: 20.19.0, 22.12.0,
 * 23.0.0), and the last ones before: the SDK ships one ES module build, so CommonJS callers need it.
 */
const REQUIRE_ESM: [string, boolean][] = [
  ['18.20.8', false],
  ['20.18.3', false],
  ['20.19.0', true],
  ['20.20.2', true],
  ['21.7.3', false],
  ['22.11.0', false],
  ['22.12.0', true],
  ['23.0.0', true],
  ['24.21.0', true],
  ['26.0.0', true],
];

describe('the SDK package', () => {
  it('is publishable: not private, the project’s licence, its folder in the repository, built files only', () => {
    assert.equal(sdk.private, undefined);
    assert.equal(sdk.name, '@voice-calls/sdk');
    assert.ok(semver.valid(sdk.version), sdk.version);
    const root = read('../../package.json');
    const document = read('../openapi.json');
    assert.equal(sdk.license, root.license);
    assert.equal(sdk.license, document.info.license.identifier, 'as the API document says');
    assert.deepEqual(sdk.repository, { type: 'git', directory: 'sdk' });
    assert.deepEqual(sdk.files, ['dist', 'openapi.json']);
  });

  for (const [version, loads] of REQUIRE_ESM) {
    it(`engines ${loads ? 'admits' : 'refuses'} Node ${version}, which ${loads ? 'can' : 'cannot'} require() it`, () => {
      assert.equal(semver.satisfies(version, sdk.engines.node), loads);
    });
  }

  it('runs here on a Node that can require() an ES module', () => {
    assert.equal(process.features.require_module, true);
    assert.ok(semver.satisfies(process.version, sdk.engines.node));
  });
});
