import type { Command } from 'commander';
import { output, withRuntime } from './context.ts';

/** Reads the password: the first line of stdin (--password-stdin), or typed at a terminal without echo. */
async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
  }
  if (!process.stdin.isTTY) {
    throw new Error('No terminal to type the password in: pipe it with --password-stdin.');
  }
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      process.stderr.write(prompt);
      const stdin = process.stdin;
      let value = '';
      stdin.setRawMode(true);
      stdin.resume();
      stdin.setEncoding('utf8');
      const onData = (key: string) => {
        for (const ch of key) {
          if (ch === '\r' || ch === '\n') {
            stdin.off('data', onData);
            stdin.setRawMode(false);
            stdin.pause();
            process.stderr.write('\n');
            resolve(value);
            return;
          }
          if (ch === '\u0003') {
            stdin.setRawMode(false);
            reject(new Error('cancelled'));
            return;
          }
          if (ch === '\u007f') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
    });
  const first = await ask('Password: ');
  const again = await ask('Repeat password: ');
  if (first !== again) throw new Error('The passwords do not match.');
  return first;
}

export function registerUserCommands(program: Command): void {
  const users = program
    .command('users')
    .description("Dashboard users (the operator creates a customer's first user)");

  users
    .command('create')
    .description('Create a dashboard user for a customer (prints no secret)')
    .requiredOption('--customer <customerId>', 'owning customer')
    .requiredOption('--email <email>', 'sign-in email (unique)')
    .option('--password-stdin', 'read the password from the first line of stdin instead of prompting')
    .option('--json', 'print JSON')
    .action(async (opts: { customer: string; email: string; passwordStdin?: boolean; json?: boolean }) => {
      // Read before opening the database: a missing password fails fast and holds no lock.
      const password = await readPassword(Boolean(opts.passwordStdin));
      await withRuntime(async ({ services }) => {
        const user = await services.dashboard.users.createUser({
          customerId: opts.customer,
          email: opts.email,
          password,
        });
        output(
          opts,
          user,
          () => `Created dashboard user ${user.email} (${user.id}) for customer ${user.customer_id}`,
        );
      });
    });

  users
    .command('list')
    .description("List a customer's dashboard users")
    .requiredOption('--customer <customerId>')
    .option('--json', 'print JSON')
    .action((opts: { customer: string; json?: boolean }) =>
      withRuntime(async ({ services }) => {
        const list = await services.dashboard.users.listUsers(opts.customer);
        output(
          opts,
          list,
          () =>
            list.map((u) => `${u.id}  ${u.email}  last sign-in ${u.last_login_at ?? 'never'}`).join('\n') ||
            '(none)',
        );
      }),
    );

  users
    .command('set-password')
    .description("Set a user's password; signs the user out everywhere")
    .requiredOption('--email <email>')
    .option('--password-stdin', 'read the password from the first line of stdin instead of prompting')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; passwordStdin?: boolean; json?: boolean }) => {
      const password = await readPassword(Boolean(opts.passwordStdin));
      await withRuntime(async ({ services }) => {
        const user = await services.dashboard.users.setPassword(opts.email, password);
        output(opts, user, () => `Password changed for ${user.email}; existing sessions were signed out.`);
      });
    });
}
