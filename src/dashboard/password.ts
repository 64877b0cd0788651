import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id (the library's default algorithm) at OWASP's baseline: 19 MiB, 2 passes, 1 lane.
 * The PHC string carries its parameters, so raising them later still verifies older hashes.
 */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | null = null;

/** Spends the time of one verification for an unknown email, so timing does not reveal which emails exist. */
export async function burnVerification(password: string): Promise<void> {
  dummy ??= hashPassword('dummy-password-for-timing-only');
  await verifyPassword(await dummy, password);
}

export function passwordProblems(password: string, email: string): string[] {
  const problems: string[] = [];
  if ([...password].length < MIN_PASSWORD_LENGTH)
    problems.push(`Use at least ${MIN_PASSWORD_LENGTH} characters.`);
  if ([...password].length > MAX_PASSWORD_LENGTH)
    problems.push(`Use at most ${MAX_PASSWORD_LENGTH} characters.`);
  if (password.trim().toLowerCase() === email.trim().toLowerCase())
    problems.push('The password must not be the email address.');
  return problems;
}
