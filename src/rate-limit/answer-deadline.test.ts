import assert from 'node:assert/strict';
import { pbkdf2 } from 'node:crypto';
import { describe, it } from 'node:test';
import { stall } from '../testing/stall.ts';
import { answerWithin, NoAnswerError } from './answer-deadline.ts';

/** An answer from outside this thread (the thread pool), the way a socket's reply arrives while we are busy. */
const fromOutside = (): Promise<string> =>
  new Promise((resolve, reject) =>
    pbkdf2('x', 'y', 1, 8, 'sha256', (error) => (error ? reject(error) : resolve('answer'))),
  );

const never = new Promise<string>(() => {});

/**
 * Continues where a request handler runs, between reading sockets and the next timers: from a timer's callback a
 * new timer could not expire before the sockets are read, whatever the implementation.
 */
const afterIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('answer deadline counted in this process time', () => {
  it('takes an answer that arrived while this thread was stalled past the deadline', async () => {
    await afterIo();
    const waiting = answerWithin(fromOutside(), { ms: 50, stepMs: 10 }, { answers: 0 });
    stall(120);
    assert.equal(await waiting, 'answer');
  });

  it('takes it too when the whole deadline is one step (each step reads the sockets before it judges)', async () => {
    await afterIo();
    const waiting = answerWithin(fromOutside(), { ms: 50, stepMs: 50 }, { answers: 0 });
    stall(120);
    assert.equal(await waiting, 'answer');
  });

  it('gives a question asked only after the stall its own time', async () => {
    await afterIo();
    // The request goes out once the stall is over, as an auto-pipelined command waits for setImmediate.
    const asked = new Promise<string>((resolve) => setImmediate(() => setTimeout(resolve, 5, 'answer')));
    const waiting = answerWithin(asked, { ms: 50, stepMs: 10 }, { answers: 0 });
    stall(120);
    assert.equal(await waiting, 'answer');
  });

  it('refuses a question never answered, after the deadline and not much later', async () => {
    const started = performance.now();
    await assert.rejects(answerWithin(never, { ms: 50, stepMs: 10 }, { answers: 0 }), NoAnswerError);
    const took = performance.now() - started;
    assert.ok(took >= 49 && took < 1_000, `${took} ms`);
  });

  it('refuses an answer slower than the deadline while this thread was free', async () => {
    const late = new Promise<string>((resolve) => setTimeout(resolve, 200, 'late'));
    await assert.rejects(answerWithin(late, { ms: 50, stepMs: 10 }, { answers: 0 }), NoAnswerError);
  });

  it('keeps waiting while the server answers the commands queued ahead, and only then', async () => {
    const deadline = { ms: 50, stepMs: 10 };
    const heard = { answers: 0 };
    // A batch in flight answered every 30 ms; ours comes fourth, after 120 ms.
    const ahead = [30, 60, 90].map((ms) =>
      answerWithin(new Promise<string>((resolve) => setTimeout(resolve, ms, 'ahead')), deadline, heard),
    );
    const ours = new Promise<string>((resolve) => setTimeout(resolve, 120, 'ours'));
    assert.equal(await answerWithin(ours, deadline, heard), 'ours');
    assert.deepEqual(await Promise.all(ahead), ['ahead', 'ahead', 'ahead']);
    assert.equal(heard.answers, 4);

    const alone = new Promise<string>((resolve) => setTimeout(resolve, 120, 'alone'));
    await assert.rejects(answerWithin(alone, deadline, { answers: 0 }), NoAnswerError, 'silent for 50 ms');
  });

  it('passes a failure through as it is', async () => {
    const refused = Promise.reject(new Error('connection refused'));
    await assert.rejects(answerWithin(refused, { ms: 50, stepMs: 10 }, { answers: 0 }), /connection refused/);
  });
});
