import { Command } from 'commander';
import { registerAssistantCommands } from './assistants.commands.ts';
import { registerCallCommands } from './calls.commands.ts';
import type { Cli, CliIo } from './context.ts';
import { registerCustomerCommands } from './customers.commands.ts';
import { registerKeyCommands } from './keys.commands.ts';
import { registerProviderCommands } from './provider.commands.ts';
import { registerSeedCommand } from './seed.commands.ts';
import { registerServerSecretCommands } from './server-secret.commands.ts';
import { registerSmsCommands } from './sms.commands.ts';
import { registerUserCommands } from './users.commands.ts';
import { registerWebhookCommands } from './webhooks.commands.ts';

/** The root command, writing to `io`; subcommands inherit its output and its exit override. */
export function rootProgram(io: CliIo): Command {
  return new Command()
    .name('voice-calls-api')
    .description(
      'Voice Assistant Calls API: server and operator commands. Configuration comes from the environment.',
    )
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
}

/** Every command an operator runs against storage: the same program in the CLI process and in the server. */
export function registerOperatorCommands(program: Command, cli: Cli): Command {
  program
    .command('migrate')
    .description('Run database migrations to the latest version')
    .action(() =>
      cli.withRuntime(async (runtime) => {
        const { migrateToLatest } = await import('../db/index.ts');
        // Opening the runtime has already migrated; running again reports nothing new and proves the schema current.
        const applied = await migrateToLatest(runtime.database.db);
        cli.io.out(`Schema is current${applied.length ? ` (applied ${applied.join(', ')})` : ''}.\n`);
      }),
    );
  registerCustomerCommands(program, cli);
  registerKeyCommands(program, cli);
  registerAssistantCommands(program, cli);
  registerCallCommands(program, cli);
  registerProviderCommands(program, cli);
  registerSmsCommands(program, cli);
  registerWebhookCommands(program, cli);
  registerSeedCommand(program, cli);
  registerUserCommands(program, cli);
  registerServerSecretCommands(program, cli);
  return program;
}
