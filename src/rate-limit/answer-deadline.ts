/** No answer came within the deadline, counted in this process's own time (see `answerWithin`). */
export class NoAnswerError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'NoAnswerError';
  }
}

export type Deadline = {
  /** How long the other side may stay silent. */
  ms: number;
  /** The wait advances in steps of this length; a step that comes late still counts as one step. */
  stepMs: number;
};

/** Answers heard from one server over one connection, by every wait that shares it. */
export type Heard = { answers: number };

/**
 * Settles as `answer` does, or rejects with `NoAnswerError` once the server has been silent for `ms` of this
 * process's time. Node runs expired timers before it reads sockets, so after our own event loop was held up
 * (a burst of TLS handshakes, any long synchronous work) a plain timer fires ahead of an answer already waiting
 * in the socket, and a command written only after the stall gets none of the time. Here a stall counts as one
 * step, not as its length, and each step is judged after the sockets have been read (`setImmediate`).
 * A step in which the server answered another wait of `heard` starts the count again: answers come in order
 * on a connection, and ioredis writes an auto-pipelined batch only once the one before it is answered, so a
 * command may queue behind a batch for as long as the server takes to answer that one.
 */
export function answerWithin<T>(answer: Promise<T>, deadline: Deadline, heard: Heard): Promise<T> {
  const steps = Math.max(1, Math.round(deadline.ms / deadline.stepMs));
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let silent = 0;
    let answersSoFar = heard.answers;
    // Judged after the sockets have been read, so an answer already received is never missed.
    const judge = () => {
      if (settled) return;
      if (heard.answers !== answersSoFar) {
        answersSoFar = heard.answers;
        silent = 0;
      } else silent += 1;
      if (silent < steps) {
        timer = setTimeout(step, deadline.stepMs);
        return;
      }
      settled = true;
      reject(new NoAnswerError(deadline.ms));
    };
    const step = () => setImmediate(judge);
    let timer = setTimeout(step, deadline.stepMs);
    answer.then(
      (value) => {
        heard.answers += 1;
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
