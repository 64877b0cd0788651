/**
 * Sends checks in batches, one batch out at a time: what comes while a batch is out waits, then goes with the next
 * one. Under load the batches grow by themselves, so concurrent requests share one round trip to Redis and one run
 * of its script instead of each paying for its own writes, reads and script call on both sides (docs/performance.md,
 * the sixteenth section). A check that finds nothing out goes at the end of the event loop's turn, with whatever the
 * other sockets read in it.
 */
export function createBatches<In, Out>(
  send: (items: In[]) => Promise<Out[]>,
  maxBatch: number,
): (item: In) => Promise<Out> {
  type Waiting = { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void };
  const waiting: Waiting[] = [];
  let out = false;
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    if (out || waiting.length === 0) return;
    const batch = waiting.splice(0, maxBatch);
    out = true;
    send(batch.map((w) => w.item)).then(
      (results) => {
        // The next batch goes out here, before the answered checks go on (they resume after this callback), so
        // Redis works on it meanwhile.
        done();
        for (const [i, w] of batch.entries()) w.resolve(results[i] as Out);
      },
      (error: unknown) => {
        done();
        for (const w of batch) w.reject(error);
      },
    );
  }

  function done(): void {
    out = false;
    flush();
  }

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (out || scheduled) return;
      scheduled = true;
      setImmediate(flush);
    });
}
