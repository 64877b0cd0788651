import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { sql } from 'kysely';
import { loadConfig } from '../config.ts';
import { ControlSocketError } from '../control/protocol.ts';
import { openDatabase } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { runSentCommand } from '../operator-socket.ts';
import type { Runtime } from '../runtime.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { testDatabase } from '../testing/test-database.ts';
import { describeFailure, printFailure } from './failure.ts';
import { bufferedIo, runProgram } from './run-program.ts';

const DATA_DIR = '/srv/vca-failure-test';
const PASSWORD = 'a long operator chosen passphrase';

/** Stderr of a failed command, as the operator reads it: one line, no SQL error, no stack. */
function assertOneSentence(stderr: string, label: string) {
  assert.equal(stderr.split('\n').length, 2, `${label}: one line\n${stderr}`);
  assert.doesNotMatch(stderr, /invalid input syntax|violates|constraint "|\n\s+at /, label);
}

/** The error a statement (or a few, in one transaction, rolled back) gets from the database. */
async function refusal(t: TestApp, statements: string[]): Promise<unknown> {
  try {
    await t.db.transaction().execute(async (tx) => {
      for (const statement of statements) await sql.raw(statement).execute(tx);
    });
  } catch (error) {
    return error;
  }
  return assert.fail(`no error from ${statements.join('; ')}`);
}

// Every command's failures go through one place (failure.ts): what the operator typed wrong, on either database,
// reads as a sentence saying what to do; a fault of ours keeps its message. Run here as the control socket runs a
// command: the CLI's own program, in process, on the test database.
describe('operator command failures', () => {
  let t: TestApp;
  let runtime: Runtime;
  const logs: string[] = [];
  before(async () => {
    t = await startTestApp();
    runtime = {
      config: loadConfig({ DATA_DIR }),
      database: await testDatabase(),
      services: t.services,
      clock: t.clock,
      logger: createLogger('info', { write: (line: string) => void logs.push(line) }),
    } as unknown as Runtime;
  });
  after(() => t.close());

  const run = (argv: string[]) => runSentCommand(runtime, { argv, cwd: '/', password: PASSWORD });
  const embedded = () => runtime.database.kind === 'pglite';

  it('turns every refusal of what the operator typed into one sentence, and into a JSON error with --json', async () => {
    const unknown = randomUUID();
    const where = embedded()
      ? `the embedded database in ${DATA_DIR}`
      : 'the PostgreSQL database of DATABASE_URL';
    const notAnId = /"nope"( \(--customer\))? is not an id: ids are UUIDs such as [0-9a-f-]{36}/;
    const noCustomer = new RegExp(
      `No customer "${unknown}" \\(--customer\\) in ${where}\\. \`customers list\``,
    );
    const cases: [string[], string, RegExp][] = [
      [['keys', 'create', '--customer', 'nope', '--name', 'x'], 'input.invalid', notAnId],
      [
        ['keys', 'create', '--customer=nope', '--name', 'x'],
        'input.invalid',
        /"nope" \(--customer\) is not an id/,
      ],
      [['keys', 'create', '--customer', unknown, '--name', 'x'], 'resource.not_found', noCustomer],
      [
        ['assistants', 'create', '--customer', unknown, '--name', 'Desk', '--voice', 'aria'],
        'resource.not_found',
        noCustomer,
      ],
      [['keys', 'revoke', 'nope'], 'input.invalid', /^"nope" is not an id/],
      [
        ['keys', 'revoke', unknown],
        'resource.not_found',
        new RegExp(`^No API key "${unknown}" in ${where}\\. \`keys list\` shows the keys there\\.`),
      ],
      [
        ['customers', 'set-outbound-limits', unknown, '--max-daily-cap', '10.00'],
        'resource.not_found',
        new RegExp(`^No customer "${unknown}" in ${where}\\. \`customers list\``),
      ],
      [['keys', 'rotate', 'nope'], 'input.invalid', /^"nope" is not an id/],
      [['keys', 'scopes', 'nope', '--scopes', 'read_calls'], 'input.invalid', /^"nope" is not an id/],
      [['keys', 'list', '--customer', 'nope'], 'input.invalid', notAnId],
      [['calls', 'callback-secret', 'nope'], 'input.invalid', /^"nope" is not an id/],
      [['customers', 'set-rate-limit', 'nope', '120'], 'input.invalid', /^"nope" is not an id/],
      [
        ['keys', 'create', '--customer', unknown, '--name', 'x', '--expires-at', 'soon'],
        'input.invalid',
        /ISO-8601/,
      ],
    ];
    for (const [argv, code, detail] of cases) {
      const label = argv.join(' ');
      const human = await run(argv);
      assert.equal(human.exitCode, 1, `${label}\n${human.stderr}`);
      assert.equal(human.stdout, '', label);
      assert.ok(human.stderr.startsWith(`error: ${code}: `), `${label}\n${human.stderr}`);
      assert.match(human.stderr.slice(`error: ${code}: `.length), detail, label);
      assertOneSentence(human.stderr, label);
      if (code === 'resource.not_found') {
        const hint =
          /If your server runs on PostgreSQL, run the command with its DATABASE_URL and SERVER_SECRET/;
        if (embedded()) assert.match(human.stderr, hint, label);
        else assert.doesNotMatch(human.stderr, hint, label);
      }

      const json = await run([...argv, '--json']);
      assert.equal(json.exitCode, 1, label);
      assert.equal(json.stderr, '', `${label}: with --json, only the JSON`);
      const { error } = JSON.parse(json.stdout);
      assert.equal(error.code, code, label);
      assert.match(error.detail, detail, label);
    }
  });

  it('lets good values through: the same commands succeed, exit 0', async () => {
    const c = await newCustomer(t);
    const created = await run(['keys', 'create', '--customer', c.customerId, '--name', 'ok', '--json']);
    assert.equal(created.exitCode, 0, created.stderr);
    const { id } = JSON.parse(created.stdout);
    for (const argv of [
      ['keys', 'list', '--customer', c.customerId],
      ['keys', 'scopes', id, '--scopes', 'read_calls'],
      ['keys', 'revoke', id],
      ['assistants', 'create', '--customer', c.customerId, '--name', 'Desk', '--voice', 'aria'],
    ]) {
      const res = await run(argv);
      assert.equal(res.exitCode, 0, `${argv.join(' ')}\n${res.stderr}`);
      assert.equal(res.stderr, '');
    }
  });

  it('keeps usage errors at exit 2, with a JSON error under --json', async () => {
    const human = await run(['keys', 'create']);
    assert.equal(human.exitCode, 2);
    assert.match(human.stderr, /required option '--customer <customerId>'/);
    const json = await run(['keys', 'create', '--json']);
    assert.equal(json.exitCode, 2);
    assert.equal(JSON.parse(json.stdout).error.code, 'cli.usage');
  });

  it("names a duplicate, a value out of range, and a database out of reach, from the database's own errors", async () => {
    const context = { argv: ['probe', '--email', 'a@b.example'], embeddedDataDir: null };
    const cases: [string[], string, RegExp][] = [
      [
        [
          'create temporary table probe_accounts (email text unique) on commit drop',
          "insert into probe_accounts values ('a@b.example'), ('a@b.example')",
        ],
        'resource.conflict',
        /^A probe account with email a@b\.example already exists in the PostgreSQL/,
      ],
      [
        [
          'create temporary table probe_plans (per_minute int check (per_minute between 1 and 600)) on commit drop',
          'insert into probe_plans values (601)',
        ],
        'input.invalid',
        /^A value is outside what a probe plan allows \(probe_plans_per_minute_check\)/,
      ],
      [['select 2147483648::int'], 'input.invalid', /^integer out of range: check the values given/],
    ];
    for (const [statements, code, detail] of cases) {
      const failure = describeFailure(await refusal(t, statements), context);
      assert.equal(failure.code, code, statements.join('; '));
      assert.match(failure.detail, detail);
    }

    const closed = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', poolSize: 1 });
    try {
      const unreachable = describeFailure(
        await sql`select 1`.execute(closed.db).catch((e: unknown) => e),
        context,
      );
      assert.equal(unreachable.code, 'service.unavailable');
      assert.match(
        unreachable.detail,
        /^Cannot reach the database \(connect ECONNREFUSED 127\.0\.0\.1:1\)\. Check/,
      );
    } finally {
      await closed.close();
    }
  });

  it('keeps a fault of ours as its own message, code internal.error, handed to the host (the server logs it)', async () => {
    const context = { argv: [], embeddedDataDir: DATA_DIR };
    const socket = describeFailure(
      new ControlSocketError('The running server belongs to another user: …'),
      context,
    );
    assert.deepEqual(
      [socket.code, socket.form],
      ['service.unavailable', 'sentence'],
      'not ours: the operator acts',
    );

    const schemaFault = describeFailure(await refusal(t, ['select * from no_such_table']), context);
    assert.deepEqual(
      [schemaFault.code, schemaFault.form, schemaFault.detail],
      ['internal.error', 'unexpected', 'relation "no_such_table" does not exist'],
    );

    // More parameters than the protocol's 16-bit count: PostgreSQL answers 08P01, in the connection class, but the
    // database was reached; the seed's keys once did this and the operator was told to check DATABASE_URL.
    const values = Array.from({ length: 70_000 }, (_, i) => i);
    const tooMany = await sql`select 1 where 0 in (${sql.join(values)})`
      .execute(t.db)
      .catch((e: unknown) => e);
    const protocol = describeFailure(tooMany, context);
    assert.equal((tooMany as { code?: string }).code, '08P01');
    assert.deepEqual([protocol.code, protocol.form], ['internal.error', 'unexpected']);

    const io = bufferedIo();
    const faults: unknown[] = [];
    const program = new Command().exitOverride();
    program.command('boom').action(() => {
      throw new TypeError('x is not a function');
    });
    const code = await runProgram(program, ['boom'], {
      io,
      embeddedDataDir: DATA_DIR,
      onUnexpected: (error) => faults.push(error),
    });
    assert.equal(code, 1);
    assert.equal(io.stderr(), 'error: x is not a function\n');
    assert.ok(faults[0] instanceof TypeError, 'handed to the host');

    const lines: string[] = [];
    printFailure(schemaFault, true, { out: (text) => lines.push(text), err: (text) => lines.push(text) });
    assert.equal(JSON.parse(lines.join('')).error.code, 'internal.error');
  });
});
