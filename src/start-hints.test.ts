import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.ts';
import { type OperatorAccess, operatorAccess, type StartState, startHints } from './start-hints.ts';

const ID = '3f2b9c1e-0000-4000-8000-000000000001';
const THROUGH_SOCKET: OperatorAccess = { cli: 'npm run cli --', socket: true, postgres: false };
const SECRET = 'start-hints-server-secret-0123456789abcdef';

describe('start-up hints', () => {
  it('name real ids, suggest a user only where none exists, and say the server keeps running', () => {
    const cases: [StartState, RegExp[], RegExp[]][] = [
      [
        { customer: null, moreCustomers: false },
        [/No customer yet/, /with this server running/, /customers create/],
        [/set-password/],
      ],
      [
        { customer: { id: ID, userEmail: null }, moreCustomers: false },
        [
          /with this server running/,
          new RegExp(`keys create --customer ${ID} `),
          new RegExp(`users create --customer ${ID} `),
        ],
        [/<id>/, /customers create/, /set-password/, /customers list/],
      ],
      [
        { customer: { id: ID, userEmail: 'owner@acme.example' }, moreCustomers: true },
        [
          new RegExp(`keys create --customer ${ID} `),
          /users set-password --email owner@acme\.example/,
          /customers list/,
        ],
        [/users create/, /<id>/],
      ],
    ];
    for (const [state, present, absent] of cases) {
      const text = startHints(state, THROUGH_SOCKET).join('\n');
      for (const re of present) assert.match(text, re, JSON.stringify(state));
      for (const re of absent) assert.doesNotMatch(text, re, JSON.stringify(state));
    }
  });

  it('name a data folder other than the default on every line, quoted for the shell, on either database', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{}, 'npm run cli --'],
      [{ DATA_DIR: './data' }, 'npm run cli --'],
      [{ DATA_DIR: '/srv/vca' }, 'DATA_DIR=/srv/vca npm run cli --'],
      [{ DATA_DIR: "/srv/o'neil dir" }, `DATA_DIR='/srv/o'\\''neil dir' npm run cli --`],
      [{ DATA_DIR: 'var' }, `DATA_DIR=${path.resolve('var')} npm run cli --`],
      [
        { DATABASE_URL: 'postgres://u@h/db', SERVER_SECRET: SECRET, DATA_DIR: '/srv/vca' },
        'DATA_DIR=/srv/vca npm run cli --',
      ],
    ];
    for (const [env, cli] of cases) {
      const access = operatorAccess(loadConfig(env), true);
      assert.equal(access.cli, cli, JSON.stringify(env));
      const lines = startHints({ customer: { id: ID, userEmail: null }, moreCustomers: true }, access);
      for (const line of lines.slice(1)) assert.ok(line.includes(`${cli} `), line);
    }
  });

  it("without a control socket, say what the commands need instead: PostgreSQL's settings, or the server stopped", () => {
    const state: StartState = { customer: { id: ID, userEmail: null }, moreCustomers: false };
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@h/db',
      SERVER_SECRET: SECRET,
      DATA_DIR: '/srv/vca',
    });
    const postgres = startHints(state, operatorAccess(config, false)).join('\n');
    assert.match(postgres, /with this server's DATABASE_URL and SERVER_SECRET in their environment/);
    assert.doesNotMatch(postgres, /DATA_DIR=|with this server running/, 'the folder would not help');
    const embedded = startHints(state, operatorAccess(loadConfig({ DATA_DIR: '/srv/vca' }), false)).join(
      '\n',
    );
    assert.match(embedded, /once this server is stopped/);
    assert.doesNotMatch(embedded, /with this server running/);
  });
});
