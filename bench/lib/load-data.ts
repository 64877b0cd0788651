import type { Fixture } from './dataset.ts';
import { scratchFile } from './load.ts';

export type LoadFiles = { calls: string; windows: string; outbound: string; deep: string };

/** The fixture as the plain-text files the load scripts read (one request identity per line). */
export function writeLoadFiles(prefix: string, f: Fixture): LoadFiles {
  return {
    calls: scratchFile(
      `${prefix}-calls.txt`,
      f.main.map((k) => [k.key, ...k.assistants].join(' ')).join('\n'),
    ),
    windows: scratchFile(`${prefix}-windows.txt`, f.windows.map((w) => `${w.from} ${w.to}`).join('\n')),
    outbound: scratchFile(
      `${prefix}-outbound.txt`,
      f.outbound.map((k) => `${k.key} ${k.assistant}`).join('\n'),
    ),
    deep: scratchFile(`${prefix}-deep.txt`, f.deep.key),
  };
}
