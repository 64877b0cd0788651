import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatches } from './batches.ts';

/** A sender whose batches are answered when the test says so, recording what each batch held. */
function heldSender() {
  const sent: number[][] = [];
  const answers: { resolve: (out: string[]) => void; reject: (e: unknown) => void; items: number[] }[] = [];
  const send = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      sent.push(items);
      answers.push({ resolve, reject, items });
    });
  const answerNext = () => {
    const a = answers.shift();
    a?.resolve(a.items.map((i) => `answer ${i}`));
  };
  const failNext = (error: Error) => answers.shift()?.reject(error);
  return { sent, send, answerNext, failNext };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batches: one out at a time, what comes meanwhile goes with the next', () => {
  it('checks of one turn go together at its end; those that come while a batch is out wait for it', async () => {
    const s = heldSender();
    const check = createBatches(s.send, 100);
    const first = [check(1), check(2)];
    assert.deepEqual(s.sent, [], 'nothing goes out before the end of the turn');
    await turn();
    assert.deepEqual(s.sent, [[1, 2]]);
    const later = [check(3), check(4), check(5)];
    await turn();
    assert.deepEqual(s.sent, [[1, 2]], 'waits while a batch is out');
    s.answerNext();
    assert.deepEqual(await Promise.all(first), ['answer 1', 'answer 2']);
    await turn();
    assert.deepEqual(s.sent, [
      [1, 2],
      [3, 4, 5],
    ]);
    s.answerNext();
    assert.deepEqual(await Promise.all(later), ['answer 3', 'answer 4', 'answer 5']);
  });

  it('the next batch is out before the answered checks go on, so the two overlap', async () => {
    const s = heldSender();
    const check = createBatches(s.send, 100);
    const first = check(1);
    await turn();
    const second = check(2);
    const seenWhenAnswered = first.then(() => s.sent.length);
    s.answerNext();
    assert.equal(await seenWhenAnswered, 2, 'the batch of 2 had gone out when check 1 went on');
    s.answerNext();
    assert.equal(await second, 'answer 2');
  });

  it('a batch never holds more than its maximum; the rest go next, in order', async () => {
    const s = heldSender();
    const check = createBatches(s.send, 2);
    const all = [1, 2, 3, 4, 5].map((i) => check(i));
    await turn();
    s.answerNext();
    await turn();
    s.answerNext();
    await turn();
    s.answerNext();
    assert.deepEqual(s.sent, [[1, 2], [3, 4], [5]]);
    assert.deepEqual(
      await Promise.all(all),
      [1, 2, 3, 4, 5].map((i) => `answer ${i}`),
    );
  });

  it('a failed batch fails each of its checks, and the next batch still goes', async () => {
    const s = heldSender();
    const check = createBatches(s.send, 100);
    const failed = [check(1), check(2)];
    await turn();
    const next = check(3);
    s.failNext(new Error('connection lost'));
    for (const f of failed) await assert.rejects(f, /connection lost/);
    await turn();
    assert.deepEqual(s.sent, [[1, 2], [3]]);
    s.answerNext();
    assert.equal(await next, 'answer 3');
  });
});
