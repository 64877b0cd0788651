/** Deterministic randomness for the simulator and demo data: the same seed gives the same call. */

const AREA_CODES = ['212', '415', '312', '617', '206', '416', '604', '514', '303', '512'];

/** A small deterministic generator (mulberry32) so seeds are reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

export function randomNanpNumber(random: () => number): string {
  const line = String(Math.floor(random() * 10_000)).padStart(4, '0');
  // 555-01xx is reserved for fiction and valid in every NANP area code.
  return `+1${pick(random, AREA_CODES)}55501${line.slice(2)}`;
}
