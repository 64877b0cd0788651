import { ensureBuilt } from '../../scripts/build.ts';
import { benchTls, makeBackend } from './backend.ts';
import { ensureDataset } from './dataset.ts';
import { writeLoadFiles } from './load-data.ts';
import type { BackendName, BenchOptions } from './options.ts';

/**
 * What a probe (bench/probes/) starts from: the service built, the backend with its data set (seeded once, then
 * from the cache) and the load tools' files of its keys and filters.
 */
export async function probeData(
  name: BackendName,
  opts: BenchOptions,
  log: (line: string) => void = () => {},
) {
  await ensureBuilt();
  const backend = makeBackend(name, opts, await benchTls());
  const fixture = await ensureDataset(backend, opts.sizes, { reseed: false, log });
  return { backend, fixture, files: writeLoadFiles(name, fixture) };
}
