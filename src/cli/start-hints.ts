import type { Database } from '../db/database.ts';
import { oldestCustomers } from './start-hints.repository.ts';

export type StartState = {
  /** The oldest customer and the email of its first dashboard user; null when there is no customer. */
  customer: { id: string; userEmail: string | null } | null;
  moreCustomers: boolean;
};

export async function readStartState(db: Database): Promise<StartState> {
  const [first, second] = await oldestCustomers(db);
  return {
    customer: first ? { id: first.id, userEmail: first.user_email } : null,
    moreCustomers: second !== undefined,
  };
}

const CLI = 'npm run cli --';

/**
 * What to do next, printed under the start-up banner: real ids, no user to create when one exists, and that
 * the operator commands work beside this server (through its control socket on the embedded database).
 */
export function startHints(state: StartState): string[] {
  const { customer } = state;
  if (!customer) {
    return [
      '  No customer yet. In another terminal, with this server running:',
      `    ${CLI} customers create --name "Acme"`,
      `    ${CLI} keys create --customer <the id it prints> --name "first key" --preset all`,
      `    ${CLI} users create --customer <the id it prints> --email you@example.com`,
    ];
  }
  return [
    `  Operator commands work with this server running (${CLI} --help), e.g.:`,
    `    ${CLI} keys create --customer ${customer.id} --name "new key" --preset all`,
    customer.userEmail
      ? `    ${CLI} users set-password --email ${customer.userEmail}`
      : `    ${CLI} users create --customer ${customer.id} --email you@example.com`,
    ...(state.moreCustomers ? [`  (the oldest customer; every one: ${CLI} customers list)`] : []),
  ];
}
