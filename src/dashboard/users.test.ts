import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { TEST_PASSWORD } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

const code = (e: unknown) => (e instanceof AppError ? e.code : String(e));

describe('dashboard users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('creates a user with an argon2id hash, the email lower-cased, and never returns the hash', async () => {
    const c = await newCustomer(t);
    const user = await t.services.dashboard.users.createUser({
      customerId: c.customerId,
      email: '  Owner@Example.COM ',
      password: TEST_PASSWORD,
    });
    assert.equal(user.email, 'owner@example.com');
    assert.equal(JSON.stringify(user).includes('argon2'), false);
    const row = await t.db
      .selectFrom('dashboard_users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
    assert.equal(row.password_hash.includes(TEST_PASSWORD), false);
    assert.deepEqual(
      (await t.services.dashboard.users.listUsers(c.customerId)).map((u) => u.id),
      [user.id],
    );
    assert.ok(await t.services.dashboard.users.verifyCredentials('OWNER@example.com', TEST_PASSWORD));
    assert.equal(
      await t.services.dashboard.users.verifyCredentials('owner@example.com', `${TEST_PASSWORD}!`),
      null,
    );
  });

  it('refuses a short password, a bad email, a taken email (any case) and an unknown customer', async () => {
    const c = await newCustomer(t);
    const users = t.services.dashboard.users;
    const email = `taken-${c.customerId.slice(0, 8)}@example.com`;
    await users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    const attempts: [Parameters<typeof users.createUser>[0], string][] = [
      [{ customerId: c.customerId, email: `x-${email}`, password: 'short' }, 'input.invalid'],
      [{ customerId: c.customerId, email: 'not-an-email', password: TEST_PASSWORD }, 'input.invalid'],
      [{ customerId: c.customerId, email: `p-${email}`, password: `p-${email}` }, 'input.invalid'],
      [
        { customerId: c.customerId, email: email.toUpperCase(), password: TEST_PASSWORD },
        'resource.conflict',
      ],
      [
        { customerId: '00000000-0000-4000-8000-000000000009', email: `n-${email}`, password: TEST_PASSWORD },
        'resource.not_found',
      ],
    ];
    for (const [input, expected] of attempts) {
      assert.equal(
        await users.createUser(input).then(() => 'created', code),
        expected,
        JSON.stringify(input),
      );
    }
  });
});

describe('users CLI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-users-cli-'));
  const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
  const cli = (args: string[], input?: string) => {
    const res = spawnSync(process.execPath, ['src/main.ts', ...args], {
      env,
      input,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: res.status, stdout: res.stdout, stderr: res.stderr };
  };
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the first user of a customer from stdin and prints nothing secret', () => {
    const customer = JSON.parse(cli(['customers', 'create', '--name', 'Acme', '--json']).stdout);
    const password = 'a long operator chosen passphrase';
    const created = cli(
      [
        'users',
        'create',
        '--customer',
        customer.id,
        '--email',
        'Admin@Acme.example',
        '--password-stdin',
        '--json',
      ],
      `${password}\n`,
    );
    assert.equal(created.status, 0, created.stderr);
    assert.equal(`${created.stdout}${created.stderr}`.includes(password), false);
    const user = JSON.parse(created.stdout);
    assert.equal(user.email, 'admin@acme.example');
    assert.equal(user.customer_id, customer.id);
    assert.equal('password_hash' in user, false);

    const again = cli(
      ['users', 'create', '--customer', customer.id, '--email', 'admin@acme.example', '--password-stdin'],
      'another long passphrase\n',
    );
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists/);
    const noTty = cli(['users', 'create', '--customer', customer.id, '--email', 'c@acme.example']);
    assert.equal(noTty.status, 1);
    assert.match(noTty.stderr, /--password-stdin/);
  });
});
