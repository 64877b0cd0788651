import { spawnSync } from 'node:child_process';
import { addRaw, addRow, type Ctx } from '../lib/context.ts';
import { MAIN_TS, REPO_ROOT } from '../lib/paths.ts';
import { judge, median, ms } from '../lib/report.ts';

const RUNS = 5;

/**
 * Scenario 7, embedded default: an operator command while the service holds the data folder, so the CLI sends it
 * over the folder's control socket (issue 18: ≤ 1.5 s). Wall time of the whole `node src/main.ts customers list`,
 * Node's own start included.
 */
export function cliBesideServerRow(ctx: Ctx): void {
  if (ctx.backend.name !== 'embedded') return;
  const env = ctx.backend.env({ LOG_LEVEL: 'silent' }, { redis: false });
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const began = performance.now();
    const res = spawnSync(process.execPath, [MAIN_TS, 'customers', 'list', '--json'], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`customers list failed: ${res.stderr}`);
    times.push(performance.now() - began);
  }
  const middle = median(times);
  addRaw(ctx, 's7cli', { times });
  addRow(ctx, {
    scenario: 7,
    what: `operator CLI beside the running service (\`customers list\`, median of ${RUNS})`,
    value: `median ${ms(middle)}, max ${ms(Math.max(0, ...times))}`,
    ratio: middle,
    unit: 'ms',
    target: '≤ 1,500 ms',
    status: judge(middle <= 1_500),
    tool: 'bench',
    note: 'through the data folder’s control socket; Node’s start included',
  });
}
