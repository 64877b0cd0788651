import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS, type Ctx, THREADS } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { resetLimiterWindows } from '../lib/limiter-reset.ts';
import { runLoad } from '../lib/load.ts';
import { RESULTS_DIR } from '../lib/paths.ts';
import { findProfile, type ProfileSummary, summarizeProfile } from '../lib/profile.ts';
import { startService } from '../lib/service.ts';

/**
 * The CPU profile of scenario 1: the service (from source) under `node --cpu-prof` with the same load, stopped
 * with SIGTERM (the profile is written at exit). Kept as bench/results/s1-<backend>.cpuprofile (open it in Chrome
 * DevTools or speedscope) and summarized by self time.
 */
export async function profileListCalls(ctx: Ctx): Promise<ProfileSummary | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-bench-prof-'));
  try {
    await resetLimiterWindows(ctx);
    const svc = await startService(ctx.backend, {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=service.cpuprofile'],
      // In the bundle every frame is in dist/: from source, the summary can group them by package.
      fromSource: true,
    });
    const spec = {
      url: svc.url,
      mode: 'calls' as const,
      dataFile: ctx.files.calls,
      windowsFile: ctx.files.windows,
      connections: CONNECTIONS,
      threads: THREADS,
    };
    let skipMs = 0;
    try {
      await warmKeys(
        svc.url,
        ctx.fixture.main.map((k) => k.key),
      );
      if (ctx.sizes.label === 'full') await runLoad(ctx.tool, { ...spec, seconds: ctx.sizes.warmupSeconds });
      skipMs = performance.now() - svc.spawnedAt;
      await runLoad(ctx.tool, { ...spec, seconds: ctx.sizes.profileSeconds });
    } finally {
      await svc.stop();
    }
    const file = findProfile(dir);
    if (!file) {
      ctx.log('  no CPU profile was written');
      return null;
    }
    const kept = path.join(RESULTS_DIR, `s1-${ctx.backend.name}.cpuprofile`);
    fs.copyFileSync(file, kept);
    const summary = summarizeProfile(file, skipMs);
    ctx.log(
      `  profile: ${summary.groups
        .slice(0, 5)
        .map((g) => `${g.group} ${(g.share * 100).toFixed(0)}%`)
        .join(', ')}`,
    );
    return summary;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
