import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Issue } from '../errors/app-error.ts';
import { checkTargetUrl, invalidTargetInput, relaxedPolicyWarning, TARGET_URL_MAX } from './target-url.ts';

const PRODUCTION = { allowHttpTargets: false, allowPrivateTargets: false };
const PATH = ['body', 'url'];
const messages = (raw: string, policy = PRODUCTION) =>
  checkTargetUrl(raw, policy, PATH).map((i) => i.message);

const PRIVATE_HINT = /WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for local development only/;
const HTTP_HINT = /WEBHOOK_ALLOW_HTTP=true, for local development only/;

describe('checkTargetUrl under the production policy', () => {
  for (const url of [
    'https://hooks.example.com/a',
    'https://hooks.example.com:8443/a?token=x',
    'https://hooks.example.com./a', // fully qualified name
    'https://8.8.8.8/hooks',
    'https://1.1.1.1/hooks',
    'https://93.184.216.34:8443/hooks',
    'https://[2606:4700:4700::1111]/hooks',
    'https://[::ffff:8.8.8.8]/hooks',
    'https://[::ffff:0:8.8.8.8]/hooks', // IPv4-translated (SIIT) public address
    'https://[64:ff9b::808:808]/hooks', // NAT64 of 8.8.8.8
    'https://localhost.example.com/hooks', // only the localhost name and its subdomains are local
    'https://internal.example.com/hooks',
  ]) {
    it(`accepts ${url}`, () => assert.deepEqual(checkTargetUrl(url, PRODUCTION, PATH), []));
  }

  const privateTargets = [
    'https://127.0.0.1/x',
    'https://2130706433/x', // 127.0.0.1 as one number
    'https://0x7f.1/x',
    'https://127.1/x',
    'https://0177.0.0.1/x',
    'https://0/x',
    'https://10.0.0.1/x',
    'https://172.16.0.1/x',
    'https://192.168.1.1/x',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/x',
    'https://224.0.0.1/x',
    'https://240.0.0.1/x',
    'https://255.255.255.255/x',
    'https://192.0.2.1/x',
    'https://[::1]/x',
    'https://[::]/x',
    'https://[fc00::1]/x',
    'https://[fd00:ec2::254]/x',
    'https://[fe80::1]/x',
    'https://[ff02::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://[::ffff:7f00:1]/x',
    'https://[::127.0.0.1]/x',
    'https://[2002:7f00:1::]/x',
    'https://[2002:c0a8:101::]/x',
    'https://[64:ff9b::7f00:1]/x',
    'https://[::ffff:0:127.0.0.1]/x', // IPv4-translated (SIIT) loopback
    'https://[::ffff:0:a9fe:a9fe]/x', // IPv4-translated metadata service
    'https://[2001::808:808]/x', // Teredo, refused whatever it carries
    'https://[64:ff9b:1::808:808]/x', // local-use NAT64, likewise
    'https://[2001:db8::1]/x',
    'https://localhost/x',
    'https://LOCALHOST/x',
    'https://localhost./x',
    'https://api.localhost/x',
    'https://api.localhost./x',
    'https://metadata.google.internal/x',
    'https://metadata.google.internal./x',
  ];
  for (const url of privateTargets) {
    it(`refuses ${url} as private, naming the development setting`, () => {
      const [message, ...rest] = messages(url);
      assert.match(message ?? '', PRIVATE_HINT);
      assert.deepEqual(rest, []);
    });
  }

  it('refuses plain http, naming the development setting; with a private host both settings are named', () => {
    const [http] = messages('http://hooks.example.com/x');
    assert.match(http ?? '', HTTP_HINT);
    const both = messages('http://127.0.0.1:3000/x');
    assert.equal(both.length, 2);
    assert.match(both[0] ?? '', HTTP_HINT);
    assert.match(both[1] ?? '', PRIVATE_HINT);
  });

  for (const [what, url] of [
    ['another scheme', 'ftp://hooks.example.com/x'],
    ['a relative URL', '/hooks'],
    ['not a URL', 'not a url'],
    ['credentials', 'https://user:pw@hooks.example.com/x'],
    ['a fragment', 'https://hooks.example.com/x#part'],
    ['port 0', 'https://hooks.example.com:0/x'],
    ['port 0 written 00', 'https://8.8.8.8:00/x'],
    ['an overlong URL', `https://hooks.example.com/${'a'.repeat(TARGET_URL_MAX)}`],
  ] as const) {
    it(`refuses ${what} whatever the policy, without a development hint`, () => {
      for (const policy of [PRODUCTION, { allowHttpTargets: true, allowPrivateTargets: true }]) {
        const issues = checkTargetUrl(url, policy, PATH);
        assert.equal(issues.length, 1, url);
        assert.deepEqual(issues[0]?.path, PATH);
        assert.doesNotMatch(issues[0]?.message ?? '', /WEBHOOK_ALLOW/);
      }
    });
  }
});

describe('checkTargetUrl with the development settings', () => {
  it('WEBHOOK_ALLOW_PRIVATE_TARGETS lets private hosts through, still https only', () => {
    const policy = { allowHttpTargets: false, allowPrivateTargets: true };
    for (const url of ['https://127.0.0.1:8443/x', 'https://localhost./x', 'https://[::127.0.0.1]/x']) {
      assert.deepEqual(messages(url, policy), [], url);
    }
    assert.match(messages('http://127.0.0.1/x', policy)[0] ?? '', HTTP_HINT);
  });

  it('WEBHOOK_ALLOW_HTTP lets plain http through, still to public hosts only', () => {
    const policy = { allowHttpTargets: true, allowPrivateTargets: false };
    assert.deepEqual(messages('http://hooks.example.com/x', policy), []);
    assert.match(messages('http://127.0.0.1/x', policy)[0] ?? '', PRIVATE_HINT);
  });

  it('puts every issue on the path it is given', () => {
    const issues = checkTargetUrl('http://127.0.0.1/x', PRODUCTION, ['body', 'callback_url']);
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['body', 'callback_url'],
        ['body', 'callback_url'],
      ],
    );
  });
});

describe('invalidTargetInput: the 422 detail', () => {
  const detailFor = (url: string, extra: Issue[] = []) => {
    const error = invalidTargetInput([...checkTargetUrl(url, PRODUCTION, PATH), ...extra]);
    assert.equal(error.code, 'input.invalid');
    return error.message;
  };

  for (const [url, names, absent] of [
    ['https://127.0.0.1:3000/hooks', ['WEBHOOK_ALLOW_PRIVATE_TARGETS=true'], 'WEBHOOK_ALLOW_HTTP'],
    ['https://localhost/hooks', ['WEBHOOK_ALLOW_PRIVATE_TARGETS=true'], 'WEBHOOK_ALLOW_HTTP'],
    ['http://hooks.example.com/x', ['WEBHOOK_ALLOW_HTTP=true'], 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    ['http://127.0.0.1:3000/hooks', ['WEBHOOK_ALLOW_HTTP=true', 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true'], null],
  ] as const) {
    it(`names ${names.join(' and ')} when only that refuses ${url}`, () => {
      const detail = detailFor(url);
      for (const name of names) assert.ok(detail.includes(name), detail);
      if (absent) assert.ok(!detail.includes(absent), detail);
      assert.match(detail, /local development only/);
    });
  }

  const refusedForGood: [what: string, url: string, extra: Issue[]][] = [
    ['credentials (even on a private host)', 'https://user:pw@127.0.0.1/x', []],
    ['port 0', 'https://hooks.example.com:0/x', []],
    ['not a URL', 'not a url', []],
    [
      'a private host beside another invalid field',
      'https://127.0.0.1/x',
      [{ path: ['body', 'events'], message: 'Unknown event.' }],
    ],
  ];
  for (const [what, url, extra] of refusedForGood) {
    it(`names no setting for ${what}: no setting would let it through`, () => {
      assert.doesNotMatch(detailFor(url, extra), /WEBHOOK_ALLOW/);
    });
  }
});

describe('the start-up warning of a relaxed target policy', () => {
  it('says nothing under the production policy, and names each development setting that is on', () => {
    assert.equal(relaxedPolicyWarning(PRODUCTION), null);
    const cases: [{ allowHttpTargets: boolean; allowPrivateTargets: boolean }, RegExp[], RegExp[]][] = [
      [
        { allowHttpTargets: true, allowPrivateTargets: false },
        [/WEBHOOK_ALLOW_HTTP is on/, /unencrypted/],
        [/PRIVATE/],
      ],
      [
        { allowHttpTargets: false, allowPrivateTargets: true },
        [/WEBHOOK_ALLOW_PRIVATE_TARGETS is on/, /SSRF/],
        [/WEBHOOK_ALLOW_HTTP/],
      ],
      [
        { allowHttpTargets: true, allowPrivateTargets: true },
        [/WEBHOOK_ALLOW_HTTP is on/, /WEBHOOK_ALLOW_PRIVATE_TARGETS is on/],
        [],
      ],
    ];
    for (const [policy, present, absent] of cases) {
      const warning = relaxedPolicyWarning(policy) ?? '';
      for (const re of [...present, /local development only: unset it in production/])
        assert.match(warning, re);
      for (const re of absent) assert.doesNotMatch(warning, re);
    }
  });
});
