/**
 * Runs `steps` in `count` rounds, each round in the other order from the last (the first as given), so that whatever
 * the machine does over the rounds falls on both sides of every ratio taken within a round. Returns each round's
 * results by name; `onRound` sees each round as it ends (for progress lines).
 */
export async function alternatedRounds<K extends string, V>(
  count: number,
  steps: (round: number) => [K, () => Promise<V>][],
  onRound?: (results: Record<K, V>, round: number) => void,
): Promise<Record<K, V>[]> {
  const rounds: Record<K, V>[] = [];
  for (let i = 0; i < count; i++) {
    const ordered = i % 2 === 0 ? steps(i) : steps(i).reverse();
    const results = {} as Record<K, V>;
    for (const [name, run] of ordered) results[name] = await run();
    rounds.push(results);
    onRound?.(results, i);
  }
  return rounds;
}
