import type { Command } from 'commander';
import { type Cli, output } from './context.ts';

export function registerUserCommands(program: Command, cli: Cli): void {
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
      // Read in the operator's process, which has the terminal, before the command is sent or the folder opened.
      const password = await cli.readPassword(Boolean(opts.passwordStdin));
      await cli.withRuntime(async ({ services }) => {
        const user = await services.dashboard.users.createUser({
          customerId: opts.customer,
          email: opts.email,
          password,
        });
        output(
          cli,
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
      cli.withRuntime(async ({ services }) => {
        const list = await services.dashboard.users.listUsers(opts.customer);
        output(
          cli,
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
      const password = await cli.readPassword(Boolean(opts.passwordStdin));
      await cli.withRuntime(async ({ services }) => {
        const user = await services.dashboard.users.setPassword(opts.email, password);
        output(
          cli,
          opts,
          user,
          () => `Password changed for ${user.email}; existing sessions were signed out.`,
        );
      });
    });
}
