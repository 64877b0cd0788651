import type { Logger } from 'pino';

export type ShutdownStep = { name: string; run: () => Promise<void> | undefined };

const unrefTimer = (ms: number, fire: () => void) => setTimeout(fire, ms).unref();

/**
 * Runs the server's stop steps in order, then exits 0. A step that hangs must not keep the process: after
 * `graceMs` it exits 1 and logs the step it was still waiting for, since the exit code alone cannot say.
 */
export async function shutDown(
  steps: ShutdownStep[],
  o: {
    logger: Logger;
    graceMs: number;
    exit: (code: number) => void;
    startTimer?: (ms: number, fire: () => void) => unknown;
  },
): Promise<void> {
  let waitingFor = '';
  (o.startTimer ?? unrefTimer)(o.graceMs, () => {
    o.logger.error(
      { waiting_for: waitingFor },
      `shutdown took longer than ${o.graceMs / 1000} s; exiting before it finished`,
    );
    o.exit(1);
  });
  for (const step of steps) {
    waitingFor = step.name;
    await step.run();
  }
  o.exit(0);
}
