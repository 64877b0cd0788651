/**
 * The modules of src/ and who owns each table: the source of docs/architecture.md's module map
 * (`npm run docs:modules`) and of the rules src/modules.test.ts checks (src/testing/module-rules.ts).
 *
 * A module is a folder (its front door is `<folder>/index.ts`) or a group of top-level files (each file is its own
 * door). A table is named in SQL only inside its owner; others call the owner's exported functions.
 */
export const LAYERS = ['platform', 'domain', 'app', 'entry', 'tests'] as const;
export type ModuleKind = (typeof LAYERS)[number];

export type ModuleSpec = {
  kind: ModuleKind;
  purpose: string;
  /** The tables only this module names in SQL. */
  tables: readonly string[];
  /** For a group of top-level files: its files. A module without files is the folder of its name. */
  files?: readonly string[];
  /**
   * Leaves of a folder module another module may import beside its index.ts: files that import no file but other
   * leaves of theirs, for a caller that must load light (the operator CLI, whose every command starts a process).
   * An index.ts loads every file it re-exports, and with them the module's database and libraries.
   */
  leaves?: readonly string[];
};
export type ModuleMap = Readonly<Record<string, ModuleSpec>>;

/** What each layer is; a module imports no module of a higher layer. */
export const LAYER_MEANING: Record<ModuleKind, string> = {
  platform: 'infrastructure that knows no domain',
  domain: 'business rules and the tables they own; domains use each other without cycles',
  app: 'wires the domains into the API, the worker and the demo',
  entry: 'processes and the operator CLI',
  tests: 'test harness and the map itself, imported by tests and scripts only',
};

export const MODULES: ModuleMap = {
  base: {
    kind: 'platform',
    purpose:
      'config (the environment, validated once), clock, ids, logger, signer, phone numbers, redaction, loops, shutdown',
    tables: [],
    files: [
      'config.ts',
      'clock.ts',
      'ids.ts',
      'logger.ts',
      'signer.ts',
      'phone.ts',
      'redaction.ts',
      'server-secret.ts',
      'compile-cache.ts',
      'loop.ts',
      'shutdown.ts',
      'outbound-limits.ts',
    ],
  },
  db: {
    kind: 'platform',
    purpose:
      'Kysely on PostgreSQL or PGlite, migrations, table types, prepared queries, lease claim, write-behind',
    tables: [],
  },
  errors: { kind: 'platform', purpose: 'closed set of error codes, AppError, problem details', tables: [] },
  http: {
    kind: 'platform',
    purpose: 'prefixes, response helpers, error handler, validation, TLS, drain at stop',
    tables: [],
  },
  crypto: { kind: 'platform', purpose: 'secret box for secrets we must read back', tables: [] },
  control: {
    kind: 'platform',
    purpose: "the data folder's control socket to a running server",
    tables: [],
    leaves: ['protocol.ts', 'socket-path.ts', 'socket-client.ts'],
  },
  delivery: {
    kind: 'platform',
    purpose: 'SSRF-guarded sender, target URL check, HMAC signature, retry schedule',
    tables: [],
  },
  pagination: {
    kind: 'platform',
    purpose: 'signed keyset cursors, instants, query-parameter parsers',
    tables: [],
  },
  'rate-limit': { kind: 'platform', purpose: 'sliding-window limiter: interface, memory, Redis', tables: [] },
  openapi: { kind: 'platform', purpose: 'OpenAPI document, its examples, /docs and its search', tables: [] },
  customers: {
    kind: 'domain',
    purpose: 'customers, their plan ceiling and outbound limits',
    tables: ['customers'],
  },
  keys: {
    kind: 'domain',
    purpose: "API keys: format, hashing, scopes, authentication, whoami, the server secret's fingerprint",
    tables: ['api_keys', 'api_key_secrets', 'auth_failures', 'server_secret_fingerprint'],
    leaves: ['scopes.ts'],
  },
  usage: {
    kind: 'domain',
    purpose: 'API usage per key and day, counted with the API',
    tables: ['key_usage_daily'],
  },
  access: { kind: 'domain', purpose: 'the guard in front of every request; throttled addresses', tables: [] },
  assistants: {
    kind: 'domain',
    purpose: 'assistants: create, list, read',
    tables: ['assistants'],
    leaves: ['voices.ts'],
  },
  provider: {
    kind: 'domain',
    purpose: 'the voice provider interface (errors as values) and its guard',
    tables: [],
  },
  simulator: {
    kind: 'domain',
    purpose: 'the built-in provider and its upstream state',
    tables: ['simulator_calls', 'simulator_messages'],
  },
  elevenlabs: {
    kind: 'domain',
    purpose: 'ElevenLabs Agents behind the provider interface: adapter, webhook, reconciliation, agent links',
    tables: ['assistant_agents'],
  },
  twilio: {
    kind: 'domain',
    purpose: 'Twilio Programmable Messaging behind the SMS provider interface: client, callbacks, checks',
    tables: [],
  },
  calls: {
    kind: 'domain',
    purpose: 'calls, their lifecycle from provider events, post-processing, billing, deletion; GET /calls',
    tables: ['calls', 'call_lifecycle', 'call_insights', 'deleted_calls'],
  },
  transcripts: {
    kind: 'domain',
    purpose: 'transcript endpoints, fetch-and-store, REST ⇄ webhook forms',
    tables: ['transcripts'],
  },
  'call-export': {
    kind: 'domain',
    purpose: 'GET /calls/export: calls streamed as CSV or NDJSON, with transcripts and insights',
    tables: [],
  },
  sms: {
    kind: 'domain',
    purpose: 'text messages: POST /sms/send, reading them, statuses and inbound messages, sms.* events',
    tables: ['sms_messages', 'sms_status_history', 'sms_opt_outs'],
  },
  outbound: {
    kind: 'domain',
    purpose: 'POST /outbound-calls: checks, idempotency, spend, callback_url notifications',
    tables: [
      'idempotency_keys',
      'spend_reservations',
      'spend_days',
      'callback_notifications',
      'callback_secrets',
    ],
  },
  webhooks: {
    kind: 'domain',
    purpose: 'events and their outbox, subscriptions, delivery worker, events API, the transcript job queue',
    tables: ['events', 'webhook_subscriptions', 'webhook_deliveries', 'webhook_attempts', 'transcript_jobs'],
  },
  dashboard: {
    kind: 'domain',
    purpose: 'server-rendered customer dashboard over the services; its users and sessions',
    tables: ['dashboard_users', 'dashboard_sessions'],
  },
  ops: { kind: 'domain', purpose: '/healthz, /readyz, /metrics, outbox statistics', tables: [] },
  'test-mode': {
    kind: 'domain',
    purpose: "test mode's own routes: simulated inbound calls for svc_test_ keys",
    tables: [],
  },
  maintenance: {
    kind: 'domain',
    purpose:
      'retention of calls, the delivery log, auth failures and idempotency keys; the vacuums where autovacuum does not run',
    tables: [],
  },
  app: {
    kind: 'app',
    purpose: 'builds the Fastify app, registers routes, wires services, opens storage',
    tables: [],
    files: ['app.ts', 'routes.ts', 'services.ts', 'call-listeners.ts', 'runtime.ts', 'storage.ts'],
  },
  demo: { kind: 'app', purpose: 'demo seed, call generator, simulated inbound calls', tables: [] },
  cli: { kind: 'entry', purpose: 'the operator CLI, one file per command group; seeding', tables: [] },
  processes: {
    kind: 'entry',
    purpose: 'main.ts (the CLI entry), serve.ts, server.ts (listens), worker.ts',
    tables: [],
    files: ['main.ts', 'serve.ts', 'server.ts', 'worker.ts', 'start-hints.ts', 'operator-socket.ts'],
  },
  testing: { kind: 'tests', purpose: 'test harness, fixtures, doc blocks, the module rules', tables: [] },
  map: { kind: 'tests', purpose: 'this map (src/modules.ts)', tables: [], files: ['modules.ts'] },
};

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The map as Markdown: the block between the module-map markers of docs/architecture.md. */
export function renderModuleMap(modules: ModuleMap = MODULES): string {
  const lines = [
    'Generated from `src/modules.ts` by `npm run docs:modules`; `src/modules.test.ts` checks the rules below on',
    'every `npm test`:',
    '',
    '- no two modules import each other, directly or around a circle;',
    '- a module imports no module of a higher layer (the order of the layers below);',
    '- another module is imported only through its front door: `<folder>/index.ts`, or the file itself for a',
    '  top-level file;',
    '- a table is named in SQL (Kysely builders, raw `sql`) only inside its owner; migrations, tests and `testing/`',
    '  are exempt;',
    '- routes and views (`*.routes.ts`, `*.views.ts`, `dashboard/views/`) import no repository, nothing of `db/`',
    "  and not Kysely, a row's type (`import type` of a table type) excepted;",
    '- every table of `db/schema.ts` has exactly one owner; every folder module has `index.ts` and a README.md',
    '  of at most 8 lines.',
    '',
    '| Layer | Module | Purpose | Tables owned |',
    '| --- | --- | --- | --- |',
  ];
  for (const kind of LAYERS) {
    for (const [name, spec] of Object.entries(modules).filter(([, s]) => s.kind === kind)) {
      const where = spec.files ? spec.files.map((f) => `\`${f}\``).join(', ') : `\`${name}/\``;
      const tables = spec.tables.map((t) => `\`${t}\``).join(', ') || '—';
      lines.push(`| ${kind} | ${name}: ${where} | ${cell(spec.purpose)} | ${tables} |`);
    }
  }
  lines.push('', ...LAYERS.map((kind) => `- **${kind}**: ${LAYER_MEANING[kind]}.`));
  return lines.join('\n');
}

export const MAP_START = '<!-- module-map:start -->';
export const MAP_END = '<!-- module-map:end -->';

/** The document with its module-map block replaced by the rendered map. */
export function withModuleMap(doc: string, map: string = renderModuleMap()): string {
  const start = doc.indexOf(MAP_START);
  const end = doc.indexOf(MAP_END);
  if (start < 0 || end < start) throw new Error(`no ${MAP_START} … ${MAP_END} block`);
  return `${doc.slice(0, start + MAP_START.length)}\n${map}\n${doc.slice(end)}`;
}
