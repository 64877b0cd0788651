import { CommanderError } from 'commander';
import { ControlSocketError } from '../control/protocol.ts';
import type { ErrorCode } from '../errors/index.ts';
import { AppError, type Issue } from '../errors/index.ts';

/**
 * The codes a failed command reports (`--json`): the API's closed set, and what only an operator meets. Stable, as
 * the API's are.
 */
export type OperatorErrorCode =
  | ErrorCode
  | 'cli.usage'
  | 'config.invalid'
  | 'config.server_secret_mismatch'
  | 'data_dir.in_use'
  | 'data_dir.unsafe';

/** What the operator reads when a command fails. */
export type Failure = {
  code: OperatorErrorCode;
  detail: string;
  issues?: Issue[];
  /** 2 for a usage error (commander has written it already), else 1. */
  exitCode: 1 | 2;
  /** How it reads: a sentence after `error: <code>:`, a message written to stand alone, or the error's own text. */
  form: 'sentence' | 'plain' | 'usage' | 'unexpected';
};

/** Where the command ran, for sentences that name it: the embedded data folder, or null on PostgreSQL. */
export type FailureContext = { argv: string[]; embeddedDataDir: string | null };

/**
 * Errors whose message is written for the operator as it stands. Matched by name: importing their modules to test
 * `instanceof` would load zod and the database on every run.
 */
const PLAIN: Record<string, OperatorErrorCode> = {
  ConfigError: 'config.invalid',
  DataDirLockedError: 'data_dir.in_use',
  DataDirUnsafeError: 'data_dir.unsafe',
  ServerSecretMismatchError: 'config.server_secret_mismatch',
};

/** SQLSTATEs (or their two-character classes) that mean the database could not be reached or refused us. */
const UNREACHABLE_STATES = ['08', '28', '3D000', '53300', '57P01', '57P02', '57P03'];
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

type PgError = Error & { code: string; detail?: string; table?: string; constraint?: string };
const isPgError = (error: unknown): error is PgError => {
  const code = error instanceof Error && 'severity' in error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
};

/**
 * Every failure of a command, in one place: what the operator did wrong (bad input, an id that is not there, a
 * duplicate, a database out of reach, a wrong configuration) becomes a sentence saying what to do; anything else
 * is a fault of ours and keeps its own message (`form: 'unexpected'`). The line between them: our own errors
 * (AppError, the control socket's, the named configuration errors), PostgreSQL's data and integrity errors (SQLSTATE classes 22 and 23,
 * which only a value can cause) and failures to connect are the operator's; a syntax, schema or internal error is
 * never caused by a value, so it is ours.
 */
export function describeFailure(error: unknown, context: FailureContext): Failure {
  if (error instanceof CommanderError) {
    return { code: 'cli.usage', detail: error.message.replace(/^error: /, ''), exitCode: 2, form: 'usage' };
  }
  if (error instanceof AppError) {
    const detail = error.missing ? notPresent(error.missing.table, error.missing.id, context) : error.message;
    return { code: error.code, detail, issues: error.issues, exitCode: 1, form: 'sentence' };
  }
  if (error instanceof ControlSocketError) {
    return { code: 'service.unavailable', detail: error.message, exitCode: 1, form: 'sentence' };
  }
  const plain = error instanceof Error ? PLAIN[error.constructor.name] : undefined;
  if (plain && error instanceof Error)
    return { code: plain, detail: error.message, exitCode: 1, form: 'plain' };
  const sentence = databaseSentence(error, context);
  if (sentence) return { ...sentence, exitCode: 1, form: 'sentence' };
  return {
    code: 'internal.error',
    detail: error instanceof Error ? error.message : String(error),
    exitCode: 1,
    form: 'unexpected',
  };
}

/** How a failure is printed: human text on stderr, or with `--json` one JSON object on stdout. */
export function printFailure(
  failure: Failure,
  json: boolean,
  io: { out(text: string): void; err(text: string): void },
) {
  if (json) {
    const { code, detail, issues } = failure;
    io.out(`${JSON.stringify({ error: { code, detail, ...(issues ? { issues } : {}) } }, null, 2)}\n`);
    return;
  }
  if (failure.form === 'usage') return; // commander has written it
  if (failure.form === 'plain') io.err(`${failure.detail}\n`);
  else if (failure.form === 'unexpected') io.err(`error: ${failure.detail}\n`);
  else io.err(`error: ${failure.code}: ${failure.detail}\n`);
  for (const issue of failure.issues ?? []) io.err(`  ${issue.path.join('.')}: ${issue.message}\n`);
}

function databaseSentence(error: unknown, context: FailureContext): Pick<Failure, 'code' | 'detail'> | null {
  if (unreachable(error)) {
    return {
      code: 'service.unavailable',
      detail:
        `Cannot reach the database (${(error as Error).message}). Check that PostgreSQL is running and that ` +
        'DATABASE_URL (host, port, database name, user, password) is right.',
    };
  }
  if (!isPgError(error)) return null;
  const { code, detail = '' } = error;
  const badText = /^invalid input syntax for type ([\w ]+): "(.*)"$/.exec(error.message);
  if (code === '22P02' && badText) {
    const [, type = '', value = ''] = badText;
    return {
      code: 'input.invalid',
      detail:
        type === 'uuid'
          ? `${named(value, context)} is not an id: ids are UUIDs such as 3f2b9c1e-0000-4000-8000-000000000001, as the ` +
            'commands print them (customers list, keys list --customer <id>).'
          : `${named(value, context)} is not a valid ${type}: see the command's --help.`,
    };
  }
  const missing = /^Key \((.+)\)=\((.+)\) is not present in table "(\w+)"\.$/.exec(detail);
  if (code === '23503' && missing) {
    const [, , value = '', table = ''] = missing;
    return { code: 'resource.not_found', detail: notPresent(table, value, context) };
  }
  const used = /^Key \((.+)\)=\((.+)\) is still referenced from table "(\w+)"\.$/.exec(detail);
  if (code === '23503' && used) {
    const [, , value = '', table = ''] = used;
    return {
      code: 'resource.conflict',
      detail: `${named(value, context)} is still used by ${noun(table)} rows: remove those first.`,
    };
  }
  const duplicate = /^Key \((.+)\)=\((.+)\) already exists\.$/.exec(detail);
  if (code === '23505' && duplicate) {
    const [, columns = '', values = ''] = duplicate;
    return {
      code: 'resource.conflict',
      detail: `A ${noun(error.table ?? 'row')} with ${columns} ${values} already exists in ${where(context)}: choose another.`,
    };
  }
  if (code === '23514') {
    return {
      code: 'input.invalid',
      detail: `A value is outside what a ${noun(error.table ?? 'row')} allows (${error.constraint}): see the command's --help.`,
    };
  }
  if (code.startsWith('22')) {
    return {
      code: 'input.invalid',
      detail: `${error.message}: check the values given (the command's --help lists them).`,
    };
  }
  return null;
}

/** An id that names nothing in the database the command used: which database, where such ids are listed. */
function notPresent(table: string, value: string, context: FailureContext): string {
  const onEmbedded = context.embeddedDataDir
    ? ' If your server runs on PostgreSQL, run the command with its DATABASE_URL and SERVER_SECRET.'
    : '';
  return `No ${noun(table)} ${named(value, context)} in ${where(context)}.${LISTED_BY[table] ?? ''}${onEmbedded}`;
}

const where = (context: FailureContext): string =>
  context.embeddedDataDir
    ? `the embedded database in ${context.embeddedDataDir}`
    : 'the PostgreSQL database of DATABASE_URL';

/** A value as the operator gave it, with the option that carried it: `"nope" (--customer)`. */
const named = (value: string, context: FailureContext): string => {
  const option = optionGiving(context.argv, value);
  return option ? `"${value}" (${option})` : `"${value}"`;
};

function unreachable(error: unknown): boolean {
  // 08P01 is in the connection class but is a statement the server refused (a protocol violation), not a reach.
  if (isPgError(error))
    return error.code !== '08P01' && UNREACHABLE_STATES.some((state) => error.code.startsWith(state));
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && NETWORK_CODES.has(code)) || /^Connection terminated/.test(error.message);
}

/** The option the operator gave `value` with (`--customer nope` or `--customer=nope`); null for an argument. */
function optionGiving(argv: string[], value: string): string | null {
  for (const [i, word] of argv.entries()) {
    if (word.startsWith('--') && word.endsWith(`=${value}`)) return word.slice(0, word.indexOf('='));
    const before = argv[i - 1];
    if (word === value && before?.startsWith('--')) return before;
  }
  return null;
}

const NOUNS: Record<string, string> = { api_keys: 'API key' };
const noun = (table: string): string => NOUNS[table] ?? table.replace(/_/g, ' ').replace(/s$/, '');

/** Where the ids of a table are listed, for a sentence about one that is not there. */
const LISTED_BY: Record<string, string> = {
  customers: ' `customers list` shows the customers there.',
  api_keys: ' `keys list` shows the keys there.',
};
