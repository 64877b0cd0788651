import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { apiResponses } from '../http/responses.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

const thing = z.object({ name: z.string(), size: z.number().int() });

describe('the test suite’s response check', () => {
  let t: TestApp;
  let c: TestCustomer;
  let answer: unknown = { name: 'a', size: 1 };
  let status = 200;

  before(async () => {
    t = await startTestApp({
      register: (app) => {
        app.get(
          '/api/v1/things',
          {
            schema: {
              response: apiResponses({ 200: { description: 'A thing.', schema: thing } }, [
                'resource.not_found',
              ]),
            },
          },
          async (_request, reply) => reply.code(status).send(answer),
        );
        app.get(
          '/api/v1/things/conflict',
          { schema: { response: apiResponses({ 200: { description: 'A thing.', schema: thing } }, []) } },
          async () => {
            throw new AppError('resource.conflict', 'Not documented for this route.');
          },
        );
      },
    });
    c = await newCustomer(t);
  });
  after(() => t.close());

  it('passes a response that matches its schema', async () => {
    answer = { name: 'a', size: 1 };
    status = 200;
    assert.equal((await t.request('GET', '/api/v1/things', { key: c.key })).status, 200);
  });

  it('fails the request on a wrong type, a missing field or an undocumented field', async () => {
    status = 200;
    for (const [body, message] of [
      [{ name: 'a', size: 1.5 }, /size/],
      [{ name: 'a' }, /size/],
      [{ name: 'a', size: 1, colour: 'red' }, /undocumented fields: \.colour/],
    ] as const) {
      answer = body;
      await assert.rejects(t.request('GET', '/api/v1/things', { key: c.key }), message);
    }
  });

  it('fails on an undocumented status and on a problem code the route does not document', async () => {
    answer = { name: 'a', size: 1 };
    status = 203;
    await assert.rejects(t.request('GET', '/api/v1/things', { key: c.key }), /status 203 is not documented/);
    status = 200;
    await assert.rejects(t.request('GET', '/api/v1/things/conflict', { key: c.key }), /status 409/);
  });

  it('checks documented problems too, and unmatched paths against the problem schema', async () => {
    const res = await t.request('GET', '/api/v1/things');
    assert.equal(res.status, 401);
    assert.equal((await t.request('GET', '/api/v1/nowhere', { key: c.key })).status, 404);
  });

  it('reports at close what other HTTP clients were answered', async () => {
    answer = { name: 1 };
    status = 200;
    const agent = new Agent({ connect: { ca: t.cert, servername: 'localhost' } });
    const res = await request(`${t.url}/api/v1/things`, {
      headers: { authorization: `Bearer ${c.key}` },
      dispatcher: agent,
    });
    await res.body.text();
    await agent.close();
    assert.equal(t.responseMismatches.length, 1);
    assert.match(t.responseMismatches[0]?.problem ?? '', /name/);
    t.responseMismatches.length = 0;
  });
});
