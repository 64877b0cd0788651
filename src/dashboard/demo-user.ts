import { randomBytes } from 'node:crypto';
import type { UsersService } from './users.service.ts';

export const DEMO_EMAIL = 'demo@example.com';

/** The demo customer's dashboard user, with a random password printed once at first start (like the demo key). */
export async function seedDemoUser(
  users: UsersService,
  customerId: string,
): Promise<{ email: string; password: string }> {
  const password = randomBytes(12).toString('base64url');
  await users.createUser({ customerId, email: DEMO_EMAIL, password });
  return { email: DEMO_EMAIL, password };
}
