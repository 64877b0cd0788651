import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type StartState, startHints } from './start-hints.ts';

const ID = '3f2b9c1e-0000-4000-8000-000000000001';

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
      const text = startHints(state).join('\n');
      for (const re of present) assert.match(text, re, JSON.stringify(state));
      for (const re of absent) assert.doesNotMatch(text, re, JSON.stringify(state));
    }
  });
});
