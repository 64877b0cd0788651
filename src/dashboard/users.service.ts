import type { Clock } from '../clock.ts';
import { findCustomer } from '../customers/index.ts';
import type { DashboardUserRow, Database } from '../db/index.ts';
import { AppError, type Issue, invalidInput, notFound } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import { burnVerification, hashPassword, passwordProblems, verifyPassword } from './password.ts';
import { deleteSessionsOfUser } from './sessions.repository.ts';
import * as repo from './users.repository.ts';

/** A dashboard user as operators see it: never the password hash. */
export type UserView = {
  id: string;
  customer_id: string;
  email: string;
  created_at: string;
  last_login_at: string | null;
};

const rowToUser = (r: DashboardUserRow): UserView => ({
  id: r.id,
  customer_id: r.customer_id,
  email: r.email,
  created_at: r.created_at.toISOString(),
  last_login_at: r.last_login_at?.toISOString() ?? null,
});

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export function createUsersService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** The operator creates a customer's users (the first one, and any other). */
    async createUser(input: { customerId: string; email: string; password: string }): Promise<UserView> {
      const email = normalizeEmail(input.email);
      const issues: Issue[] = [
        ...(EMAIL_RE.test(email) && email.length <= 254
          ? []
          : [{ path: ['email'], message: 'Must be an email address.' }]),
        ...passwordProblems(input.password, email).map((message) => ({ path: ['password'], message })),
      ];
      if (issues.length > 0) throw invalidInput(issues);
      if (!(await findCustomer(db, input.customerId)))
        throw notFound('Customer', { table: 'customers', id: input.customerId });
      const row = await repo.insertUser(db, {
        id: newUuid(),
        customer_id: input.customerId,
        email,
        password_hash: await hashPassword(input.password),
        created_at: clock.now(),
        last_login_at: null,
      });
      if (!row)
        throw new AppError('resource.conflict', `A dashboard user with email ${email} already exists.`);
      return rowToUser(row);
    },

    async listUsers(customerId: string): Promise<UserView[]> {
      return (await repo.listByCustomer(db, customerId)).map(rowToUser);
    },

    /** A new password signs the user out everywhere. */
    async setPassword(email: string, password: string): Promise<UserView> {
      const user = await repo.findByEmail(db, normalizeEmail(email));
      if (!user) throw notFound('Dashboard user');
      const problems = passwordProblems(password, user.email);
      if (problems.length > 0)
        throw invalidInput(problems.map((message) => ({ path: ['password'], message })));
      await repo.setPasswordHash(db, user.id, await hashPassword(password));
      await deleteSessionsOfUser(db, user.id);
      return rowToUser(user);
    },

    /** The user for these credentials, or null; an unknown email costs the same time as a wrong password. */
    async verifyCredentials(email: string, password: string): Promise<UserView | null> {
      const user = await repo.findByEmail(db, normalizeEmail(email));
      if (!user) {
        await burnVerification(password);
        return null;
      }
      if (!(await verifyPassword(user.password_hash, password))) return null;
      await repo.touchLogin(db, user.id, clock.now());
      return rowToUser(user);
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
