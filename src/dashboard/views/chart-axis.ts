/** Steps a y axis may use: whole numbers of 1, 2, 2.5 (from 25 up), 5 times a power of ten. */
function* niceSteps(): Generator<number> {
  for (let magnitude = 1; ; magnitude *= 10) {
    yield magnitude;
    yield 2 * magnitude;
    if (magnitude >= 10) yield 2.5 * magnitude;
    yield 5 * magnitude;
  }
}

/**
 * The ticks of a y axis from 0 to at least `top`: whole, distinct, evenly spaced numbers, at most `maxSteps`
 * steps. An empty chart (top 0) reads 0 and 1, never a fraction rounded to the same label twice.
 */
export function axisTicks(top: number, maxSteps = 4): number[] {
  const reach = Math.max(1, Math.ceil(top));
  let step = 1;
  for (const s of niceSteps()) {
    step = s;
    if (s * maxSteps >= reach) break;
  }
  const count = Math.ceil(reach / step);
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}
