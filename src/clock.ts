export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The UTC calendar day of `at`, as `YYYY-MM-DD`: the key of daily usage and spend counters. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** A clock that only moves when told to: time-dependent tests use it instead of sleeping. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = '2026-01-15T12:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(at: Date | string): void {
    this.#ms = new Date(at).getTime();
  }
}
