/**
 * Runs `task` every `ms` (and once at once when `now`), one run at a time; `stop` waits for the run in progress.
 */
export function every(
  ms: number,
  task: () => Promise<unknown>,
  onError: (err: unknown) => void,
  o: { now?: boolean } = {},
) {
  let running: Promise<unknown> = o.now ? task().catch(onError) : Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => task().catch(onError));
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
