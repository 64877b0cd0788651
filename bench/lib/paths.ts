import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
export const CACHE_DIR = process.env.BENCH_CACHE_DIR
  ? path.resolve(process.env.BENCH_CACHE_DIR)
  : path.join(RESULTS_DIR, 'cache');
export const MAIN_TS = path.join(REPO_ROOT, 'src', 'main.ts');

/** Fixed for the bench so seeded key hashes, cursors and sealed secrets stay valid across runs. */
export const BENCH_SERVER_SECRET = 'bench-only-server-secret-0123456789abcdefghij';
