import fs from 'node:fs';
import os from 'node:os';
import { fmt } from './report.ts';

/** CPU seconds spent over a stretch of the bench, by process, and by the whole machine. */
export type CpuSpend = {
  /** Wall-clock seconds of the stretch. */
  seconds: number;
  cores: number;
  /** The whole machine's busy time (every core, every process), from /proc/stat. */
  machine: number;
  /** This process (all its threads: the worker, its database thread on PGlite, the load itself). */
  bench: number;
  receivers: number | null;
  /** Every process named `postgres` on this machine: the server's backends and its own helpers. */
  postgres: number | null;
};

type Mark = { at: number; machine: number; bench: number; receivers: number | null; postgres: number | null };

const TICK = 0.01; // USER_HZ: /proc reports CPU time in hundredths of a second on Linux.

function readFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** utime + stime of one process, in seconds; null when it is gone. */
export function processSeconds(pid: number): number | null {
  const stat = readFile(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK;
}

/** `processSeconds` for a probe that cannot be read without the process: throws once it is gone (or not here). */
export function liveProcessSeconds(pid: number): number {
  const seconds = processSeconds(pid);
  if (seconds === null) throw new Error(`process ${pid} is gone (or not on this machine)`);
  return seconds;
}

function postgresSeconds(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = readFile(`/proc/${pid}/stat`);
    if (stat?.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres')
      total += processSeconds(Number(pid)) ?? 0;
  }
  return total;
}

/** Busy time of every core (all but idle and iowait), in seconds. */
export function machineSeconds(): number {
  const line = readFile('/proc/stat')?.split('\n')[0] ?? '';
  const [, ...ticks] = line.trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  return (user + nice + system + irq + softirq + steal) * TICK;
}

/**
 * Reads CPU time from /proc (Linux), so a drain's cost per delivery can be set beside the floor's cost per POST:
 * whether a rate is bound by the machine's cores or by waiting. PostgreSQL's share is counted only when `postgres`
 * is set (its server runs on this machine in the bench). Null where /proc is missing.
 */
export function cpuMeter(o: { receiversPid?: number; postgres: boolean }) {
  if (!fs.existsSync('/proc/stat')) return null;
  const mark = (): Mark => {
    const own = process.cpuUsage();
    return {
      at: performance.now(),
      machine: machineSeconds(),
      bench: (own.user + own.system) / 1e6,
      receivers: o.receiversPid === undefined ? null : processSeconds(o.receiversPid),
      postgres: o.postgres ? postgresSeconds() : null,
    };
  };
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  return {
    mark,
    since(start: Mark): CpuSpend {
      const end = mark();
      return {
        seconds: (end.at - start.at) / 1000,
        cores: os.availableParallelism(),
        machine: end.machine - start.machine,
        bench: end.bench - start.bench,
        receivers: diff(start.receivers, end.receivers),
        postgres: diff(start.postgres, end.postgres),
      };
    },
  };
}

/**
 * A spend per unit of work, by process, with the cores' busy share: "231 µs (bench process 94 µs, PostgreSQL 104 µs,
 * receivers 36 µs), 78 % of 2 cores busy". PostgreSQL is left out where the work does not touch it (the floor).
 */
export function describeSpend(c: CpuSpend, units: number, o: { postgres: boolean }): string {
  const us = (seconds: number | null) =>
    seconds === null ? 'not read' : `${fmt((seconds / units) * 1e6)} µs`;
  const parts = [
    `bench process ${us(c.bench)}`,
    ...(o.postgres ? [`PostgreSQL ${us(c.postgres)}`] : []),
    `receivers ${us(c.receivers)}`,
  ];
  const busy = fmt((c.machine / (c.seconds * c.cores)) * 100);
  return `${us(c.machine)} (${parts.join(', ')}), ${busy} % of ${c.cores} cores busy`;
}
