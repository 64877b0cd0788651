import type { Logger } from 'pino';
import { startCallLoops } from './calls/index.ts';
import { systemClock } from './clock.ts';
import { type Config, loadConfig } from './config.ts';
import { seedDemoUser } from './dashboard/index.ts';
import { relaxedPolicyWarning } from './delivery/index.ts';
import { seedDemo } from './demo/index.ts';
import { webhookExposureWarning } from './elevenlabs/index.ts';
import { createLogger } from './logger.ts';
import { startControlSocket } from './operator-socket.ts';
import { openRuntime } from './runtime.ts';
import { startServer } from './server.ts';
import { shutDown } from './shutdown.ts';
import { startSimulatorLoop } from './simulator/index.ts';
import { startSmsReconcileLoop } from './sms/index.ts';
import { operatorAccess, readStartState, startHints } from './start-hints.ts';
import type { Storage } from './storage.ts';
import { createConfiguredWorker, registerOutboxGauges } from './worker.ts';

/**
 * `serve`: the HTTPS API, the dashboard, the workers and, on the embedded database, the operator's socket. main.ts
 * starts opening the storage before this module loads (`opening`).
 */
export async function serve(config: Config, opening: Promise<Storage>): Promise<void> {
  const logger = createLogger(config.logLevel ?? 'info');
  const relaxed = warnOfRelaxedTargets(config, logger);
  const runtime = await openRuntime(config, systemClock, logger, { opening });
  // As soon as the folder is ours: operator commands work from here on, demo seeding included.
  const control = await startControlSocket(runtime);
  const seedDemoData =
    config.demoSeed && runtime.database.kind === 'pglite' && (await runtime.services.customers.isEmpty());
  if (seedDemoData) process.stderr.write('Adding demo data…\n');
  const seed = seedDemoData ? await seedDemo(runtime.database.db, runtime.services, systemClock) : null;
  const demoUser = seed ? await seedDemoUser(runtime.services.dashboard.users, seed.customerId) : null;
  const delivery = config.workerInProcess ? createConfiguredWorker(runtime) : null;
  delivery?.worker.start();
  registerOutboxGauges(runtime);
  const server = await startServer(runtime, delivery ? [delivery.probe] : []);
  // The calls' own schedule (post-processing, reconciliation), the simulator's clock (demo inbound traffic in demo
  // mode) and, with PROVIDER=elevenlabs, its reconciliation of timed-out placements and unreported conversations.
  const { lifecycle } = runtime.services;
  const callLoops = startCallLoops({
    lifecycle,
    logger,
    reconcileIntervalSeconds: config.reconcileIntervalSeconds,
  });
  const simulation = startSimulatorLoop(
    {
      db: runtime.database.db,
      world: runtime.services,
      config,
      clock: runtime.clock,
      logger,
    },
    { demo: config.demoSeed && runtime.database.kind === 'pglite' && config.provider === 'simulator' },
  );
  const { elevenlabs, sms } = runtime.services;
  // Text messages whose final status never came (a lost callback) are asked about, as calls are reconciled.
  const smsReconciliation = startSmsReconcileLoop({
    db: runtime.database.db,
    clock: runtime.clock,
    afterSeconds: config.smsReconcileAfterSeconds,
    providers: sms.carriers(),
    intervalMs: config.reconcileIntervalSeconds * 1000,
    logger,
  });
  const reconciliation =
    elevenlabs?.startReconciliation({ lifecycle, intervalSeconds: config.reconcileIntervalSeconds }) ?? null;
  // The first check is awaited so that the banner can say what it found; the server is already answering.
  if (elevenlabs) await elevenlabs.health.check();
  const healthChecks =
    elevenlabs?.health.start({ intervalSeconds: config.providerCheckIntervalSeconds, logger }) ?? null;
  const exposure = elevenlabs
    ? webhookExposureWarning({
        host: config.host,
        tlsCertFile: config.tlsCertFile,
        trustedProxies: config.trustedProxies,
      })
    : null;
  if (exposure) logger.warn(exposure);

  const lines = [
    '',
    `Voice Assistant Calls API listening on ${server.url}/api/v1`,
    `  API reference: ${server.url}/docs (OpenAPI: ${server.url}/api/v1/openapi.json)`,
    `  dashboard: ${server.url}/dashboard/${demoUser ? ` (sign in as ${demoUser.email} / ${demoUser.password}, shown once)` : ''}`,
    `  storage: ${runtime.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'}; rate limits: ${runtime.redis ? 'Redis' : 'in memory'}`,
    elevenlabs
      ? `  provider: ElevenLabs Agents at ${config.elevenlabsBaseUrl} (${elevenlabs.health.current().state === 'ok' ? 'answers our key' : 'see the WARNING below'}); its webhook: ${server.url}/provider/elevenlabs/webhook`
      : '  provider: the built-in simulator (no real calls; PROVIDER=elevenlabs places real ones)',
    runtime.services.twilio
      ? `  text messages: Twilio; its callbacks: ${config.publicBaseUrl}/provider/twilio/sms-status and …/sms-inbound`
      : '  text messages: the built-in simulator (SMS_PROVIDER=twilio sends real ones)',
    ...(server.plainUrl
      ? [`  plain HTTP on ${server.plainUrl} (refused unless via a trusted TLS proxy)`]
      : []),
    ...(seed
      ? [
          `  demo customer ${seed.customerId}: ${seed.assistants} assistants, ${seed.calls} calls, ${seed.messages} text messages`,
          '',
          '  Demo API key (shown once, store it now):',
          `    ${seed.secret}`,
          '',
          `  Try: curl -k -H "Authorization: Bearer ${seed.secret}" ${server.url}/api/v1/auth/whoami`,
        ]
      : startHints(await readStartState(runtime.database.db), operatorAccess(config, control !== null))),
    ...(relaxed ? ['', `  WARNING: ${relaxed}`] : []),
    ...[elevenlabs?.health.warning(), exposure].flatMap((w) => (w ? ['', `  WARNING: ${w}`] : [])),
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await shutDown(
      [
        { name: 'operator socket', run: () => control?.close() },
        { name: 'HTTP server, then its usage counts and last-used times', run: () => server.close() },
        { name: 'simulator', run: () => simulation.stop() },
        { name: 'call post-processing and reconciliation', run: () => callLoops.stop() },
        { name: 'ElevenLabs reconciliation', run: () => reconciliation?.stop() },
        { name: 'SMS reconciliation', run: () => smsReconciliation.stop() },
        { name: 'ElevenLabs health check', run: () => healthChecks?.stop() },
        { name: 'webhook worker', run: () => delivery?.close() },
        { name: 'storage', run: () => runtime.close() },
      ],
      { logger, graceMs: 10_000, exit: (code) => process.exit(code) },
    );
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** `worker`: webhook delivery alone, beside API processes (needs DATABASE_URL: PGlite is one process). */
export async function work(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel ?? 'info');
  warnOfRelaxedTargets(config, logger);
  const runtime = await openRuntime(config, systemClock, logger);
  const delivery = createConfiguredWorker(runtime);
  delivery.worker.start();
  logger.info({ concurrency: config.workerConcurrency }, 'webhook worker started');
  const stop = async () => {
    await delivery.close();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

/** Logs (and returns, for the banner) the warning while a development setting relaxes the webhook target policy. */
function warnOfRelaxedTargets(config: Config, logger: Logger): string | null {
  const warning = relaxedPolicyWarning({
    allowHttpTargets: config.webhookAllowHttp,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
  });
  if (warning) logger.warn(warning);
  return warning;
}
