import path from 'node:path';
import type { Config } from './config.ts';
import { oldestCustomerIds } from './customers/index.ts';
import { firstUserEmail } from './dashboard/index.ts';
import type { Database } from './db/index.ts';

export type StartState = {
  /** The oldest customer and the email of its first dashboard user; null when there is no customer. */
  customer: { id: string; userEmail: string | null } | null;
  moreCustomers: boolean;
};

export async function readStartState(db: Database): Promise<StartState> {
  const [first, second] = await oldestCustomerIds(db, 2);
  return {
    customer: first ? { id: first, userEmail: await firstUserEmail(db, first) } : null,
    moreCustomers: second !== undefined,
  };
}

/** How an operator's shell reaches this server's commands, for lines that work when pasted as printed. */
export type OperatorAccess = {
  /** The start of every command line: `npm run cli --`, after `DATA_DIR=…` when the folder is not the default. */
  cli: string;
  /** Whether this server answers on its folder's control socket. */
  socket: boolean;
  postgres: boolean;
};

/** A word the shell reads back unchanged. */
const shellWord = (text: string): string =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * `npm run cli` runs in the project's folder, where the default DATA_DIR is `./data`, as for `npm start`; any other
 * folder is named on the line, so the CLI finds this server's socket.
 */
export function operatorAccess(config: Config, socket: boolean): OperatorAccess {
  const prefix = config.dataDir === path.resolve('data') ? '' : `DATA_DIR=${shellWord(config.dataDir)} `;
  return { cli: `${prefix}npm run cli --`, socket, postgres: config.databaseUrl !== undefined };
}

/**
 * What to do next, printed under the start-up banner: real ids, no user to create when one exists, and how the
 * operator commands reach this server: through its control socket (both databases), so the lines work as printed;
 * without one, what they need instead.
 */
export function startHints(state: StartState, access: OperatorAccess): string[] {
  const { customer } = state;
  const cli = access.socket ? access.cli : 'npm run cli --';
  const how = access.socket
    ? 'with this server running'
    : access.postgres
      ? "with this server's DATABASE_URL and SERVER_SECRET in their environment (it has no control socket)"
      : 'once this server is stopped (it has no control socket)';
  if (!customer) {
    return [
      `  No customer yet. In another terminal, ${how}:`,
      `    ${cli} customers create --name "Acme"`,
      `    ${cli} keys create --customer <the id it prints> --name "first key" --preset all`,
      `    ${cli} users create --customer <the id it prints> --email you@example.com`,
    ];
  }
  return [
    `  Operator commands work ${how} (${cli} --help), e.g.:`,
    `    ${cli} keys create --customer ${customer.id} --name "new key" --preset all`,
    customer.userEmail
      ? `    ${cli} users set-password --email ${customer.userEmail}`
      : `    ${cli} users create --customer ${customer.id} --email you@example.com`,
    ...(state.moreCustomers ? [`  (the oldest customer; every one: ${cli} customers list)`] : []),
  ];
}
