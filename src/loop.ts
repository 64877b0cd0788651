/** What a loop reports a failed run to: the service's logger, or anything with its `error`. */
export type LoopLogger = { error(obj: object, msg: string): void };

export type LoopOptions = {
  /** Names the loop in its log lines (`<name> failed`). */
  name: string;
  /** Time between the starts of two runs; a run still going when the next is due makes that one skipped. */
  intervalMs: number;
  /** Run once at once as well, not only after the first interval. */
  runAtStart?: boolean;
  logger: LoopLogger;
};

export type Loop = {
  /**
   * Stops the timer, aborts the signal the run in progress was handed (it ends at its next check and leaves the
   * rest for the next start), and waits for that run to finish.
   */
  stop(): Promise<void>;
};

/**
 * The one way the service runs background work: `task` every `intervalMs`, one run at a time, never overlapping
 * (a run that outlasts the interval skips the ticks it covered instead of queueing them), a failure logged under
 * the loop's name and tried again at the next tick, and a stop that waits for the run in progress. The timer is
 * unref'd: a loop never keeps a process alive on its own.
 */
export function startLoop(o: LoopOptions, task: (signal: AbortSignal) => Promise<unknown>): Loop {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const run = () => {
    if (running || stopping.signal.aborted) return;
    running = task(stopping.signal)
      .then(
        () => {},
        (err: unknown) => o.logger.error({ err, loop: o.name }, `${o.name} failed`),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, o.intervalMs);
  timer.unref();
  if (o.runAtStart) run();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
