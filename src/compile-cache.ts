import path from 'node:path';

/**
 * Where Node keeps what it compiled (the type-stripped TypeScript and the dependencies' code), checked against each
 * file's contents: a start after the first skips about a third of its module loading. `npm install` fills it.
 */
export const COMPILE_CACHE_DIR = path.join(
  import.meta.dirname,
  '..',
  'node_modules',
  '.cache',
  'voice-calls-api',
  'compile-cache',
);
