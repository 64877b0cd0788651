import cliProgress from 'cli-progress';
import type { SeedProgress } from './seed-dataset.ts';

/** A progress bar on stderr when it is a terminal; silent otherwise (CI logs, pipes). */
export function progressBar(): SeedProgress {
  const bar = new cliProgress.SingleBar(
    {
      format: '{phase} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}',
      stream: process.stderr,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = 0;
  return {
    start(phase, total) {
      started = performance.now();
      bar.start(total, 0, { phase: phase.padEnd(5), rate: 0 });
    },
    advance(by) {
      const done = bar.getProgress() * bar.getTotal() + by;
      bar.increment(by, { rate: Math.round(done / ((performance.now() - started) / 1000 || 1)) });
    },
    stop: () => bar.stop(),
  };
}
