import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerAssistantCommands } from './cli/assistants.commands.ts';
import { registerCallCommands } from './cli/calls.commands.ts';
import { registerCustomerCommands } from './cli/customers.commands.ts';
import { registerKeyCommands } from './cli/keys.commands.ts';
import { registerSeedCommand } from './cli/seed.commands.ts';
import { registerUserCommands } from './cli/users.commands.ts';
import { registerWebhookCommands } from './cli/webhooks.commands.ts';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig } from './config.ts';
import { seedDemoUser } from './dashboard/demo-user.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { migrateToLatest } from './db/migrate.ts';
import { seedDemo } from './demo/seed-demo.ts';
import { startVoiceBackground } from './lifecycle/background.ts';
import { createLogger } from './logger.ts';
import { openRuntime } from './runtime.ts';
import { startServer } from './server.ts';
import { startReconciliation } from './upstream/elevenlabs-reconcile.ts';
import { createConfiguredWorker, registerOutboxGauges } from './worker.ts';

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel ?? 'info');
  // The first start on a new data folder spends most of its time in PGlite's initdb: say so, not silence.
  if (!config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'pglite'))) {
    process.stderr.write(`Creating the embedded database in ${config.dataDir} (first start only: 5-15 s)…\n`);
  }
  const runtime = await openRuntime(config, systemClock, logger);
  const seedDemoData =
    config.demoSeed && runtime.database.kind === 'pglite' && (await runtime.services.customers.isEmpty());
  if (seedDemoData) process.stderr.write('Adding demo data…\n');
  const seed = seedDemoData ? await seedDemo(runtime.database.db, runtime.services, systemClock) : null;
  const demoUser = seed ? await seedDemoUser(runtime.services.dashboard.users, seed.customerId) : null;
  const delivery = config.workerInProcess ? createConfiguredWorker(runtime) : null;
  delivery?.worker.start();
  registerOutboxGauges(runtime);
  const server = await startServer(runtime, delivery ? [delivery.probe] : []);
  // Provider simulator, call lifecycle and post-processing; demo inbound traffic in demo mode.
  const voice = startVoiceBackground(
    {
      db: runtime.database.db,
      parts: runtime.services,
      config,
      clock: runtime.clock,
      logger: runtime.logger,
    },
    { demo: config.demoSeed && runtime.database.kind === 'pglite' && config.provider === 'simulator' },
  );
  // PROVIDER=elevenlabs: every minute, placements that timed out and inbound conversations no webhook reported.
  const upstream = runtime.services.elevenlabs;
  const reconciliation = upstream
    ? startReconciliation(
        {
          db: runtime.database.db,
          provider: upstream.provider,
          lifecycle: runtime.services.lifecycle,
          clock: runtime.clock,
        },
        (err) => logger.error({ err }, 'ElevenLabs reconciliation failed'),
      )
    : null;

  const lines = [
    '',
    `Voice Assistant Calls API listening on ${server.url}/api/v1`,
    `  API reference: ${server.url}/docs (OpenAPI: ${server.url}/api/v1/openapi.json)`,
    `  dashboard: ${server.url}/dashboard/${demoUser ? ` (sign in as ${demoUser.email} / ${demoUser.password}, shown once)` : ' (add a user: npm run cli -- users create --customer <id> --email <email>)'}`,
    `  storage: ${runtime.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'}; rate limits: ${runtime.redis ? 'Redis' : 'in memory'}`,
    ...(server.plainUrl
      ? [`  plain HTTP on ${server.plainUrl} (refused unless via a trusted TLS proxy)`]
      : []),
    ...(seed
      ? [
          `  demo customer ${seed.customerId}: ${seed.assistants} assistants, ${seed.calls} calls`,
          '',
          '  Demo API key (shown once, store it now):',
          `    ${seed.secret}`,
          '',
          `  Try: curl -k -H "Authorization: Bearer ${seed.secret}" ${server.url}/api/v1/auth/whoami`,
        ]
      : ['  Create a key: npm run cli -- keys create --customer <id> --name <name> --preset all']),
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await server.close();
    await voice.stop();
    await reconciliation?.stop();
    await delivery?.close();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Webhook delivery alone, for scaling out beside API processes (needs DATABASE_URL: PGlite is one process). */
async function work(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel ?? 'info');
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

const program = new Command()
  .name('voice-calls-api')
  .description(
    'Voice Assistant Calls API: server and operator commands. Configuration comes from the environment.',
  )
  .exitOverride();

program.command('serve').description('Start the HTTPS API (migrates first)').action(serve);
program.command('worker').description('Run only the webhook delivery worker').action(work);
program
  .command('migrate')
  .description('Run database migrations to the latest version')
  .action(async () => {
    const config = loadConfig();
    const runtime = await openRuntime(config, systemClock, createLogger('warn', process.stderr));
    // openRuntime has already migrated; running again reports nothing new and proves the schema is current.
    const applied = await migrateToLatest(runtime.database.db);
    process.stdout.write(`Schema is current${applied.length ? ` (applied ${applied.join(', ')})` : ''}.\n`);
    await runtime.close();
  });
registerCustomerCommands(program);
registerKeyCommands(program);
registerAssistantCommands(program);
registerCallCommands(program);
registerWebhookCommands(program);
registerSeedCommand(program);
registerUserCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
