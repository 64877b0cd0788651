import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.ts';

type CpuProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};

type CpuProfile = {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
};

export type ProfileSummary = {
  sampledMs: number;
  /** Share of busy (non-idle) time. */
  groups: { group: string; share: number }[];
  top: { frame: string; share: number }[];
};

function groupOf(url: string, fn: string): string {
  if (!url) {
    if (fn === '(idle)') return '(idle)';
    if (fn === '(garbage collector)') return 'garbage collector';
    if (fn === '(program)') return 'native, outside JS (TLS record crypto, syscalls, V8)';
    return `native: ${fn}`;
  }
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm?.[1]) return `npm: ${nm[1]}`;
  if (url.startsWith('wasm://')) return 'PGlite WASM (PostgreSQL itself)';
  if (url.startsWith('node:')) {
    const m = url.slice(5).replace(/^internal\//, '');
    if (/^(tls|_tls|crypto)/.test(m)) return 'node: tls';
    if (/^(http|_http)/.test(m)) return 'node: http';
    if (/^(net|stream|streams|dns|socket)/.test(m)) return 'node: net and streams';
    return 'node: other internals';
  }
  if (url.includes('/src/'))
    return `service code: ${url.slice(url.indexOf('/src/') + 1).split('/')[1] ?? ''}`;
  return url;
}

const shortUrl = (url: string) =>
  url
    .replace(`file://${REPO_ROOT}/`, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^node:internal\//, 'node:');

/**
 * Self time per function and per group (npm package, Node subsystem, service module) of a .cpuprofile,
 * leaving out the first `skipMs` (start-up and warm-up: module loading is not the hot path).
 */
export function summarizeProfile(file: string, skipMs: number, top = 20): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<number, number>();
  let at = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at >= skipMs * 1000) self.set(id, (self.get(id) ?? 0) + dt);
  });
  const groups = new Map<string, number>();
  const frames = new Map<string, number>();
  let busy = 0;
  let total = 0;
  for (const [id, us] of self) {
    const cf = byId.get(id);
    if (!cf) continue;
    total += us;
    const group = groupOf(cf.url, cf.functionName);
    if (group === '(idle)') continue;
    busy += us;
    groups.set(group, (groups.get(group) ?? 0) + us);
    const frame = cf.url
      ? `${cf.functionName || '(anonymous)'} ${shortUrl(cf.url)}:${cf.lineNumber + 1}`
      : cf.functionName;
    frames.set(frame, (frames.get(frame) ?? 0) + us);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    sampledMs: Math.round(total / 1000),
    groups: sorted(groups).map(([group, us]) => ({ group, share: us / busy })),
    top: sorted(frames)
      .slice(0, top)
      .map(([frame, us]) => ({ frame, share: us / busy })),
  };
}

/**
 * Inclusive time: the share of busy time with each of the service's own functions (src/) or each npm package on
 * the stack, counted once per sample, leaving out the first `skipMs`.
 */
export function inclusiveShares(file: string, skipMs: number): { frame: string; share: number }[] {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const label = ({ callFrame: { url, functionName, lineNumber } }: CpuProfileNode) => {
    if (url.includes('/src/'))
      return `${functionName || '(anonymous)'} ${url.slice(url.indexOf('/src/') + 1)}:${lineNumber + 1}`;
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    return m ? `npm: ${m[1]}` : null;
  };
  const totals = new Map<string, number>();
  let busy = 0;
  let at = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at < skipMs * 1000 || byId.get(id)?.callFrame.functionName === '(idle)') return;
    busy += dt;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      const l = n && label(n);
      if (l) seen.add(l);
    }
    for (const l of seen) totals.set(l, (totals.get(l) ?? 0) + dt);
  });
  return [...totals].map(([frame, us]) => ({ frame, share: us / busy })).sort((a, b) => b.share - a.share);
}

export function findProfile(dir: string): string | null {
  const f = fs.readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
  return f ? path.join(dir, f) : null;
}
