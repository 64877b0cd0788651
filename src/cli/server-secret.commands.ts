import type { Command } from 'commander';
import { loadServerSecret } from '../server-secret.ts';
import { type Cli, output } from './context.ts';

export function registerServerSecretCommands(program: Command, cli: Cli): void {
  program
    .command('server-secret')
    .description("The server secret the database's keys are made with")
    .command('adopt')
    .description(
      "Record this process's server secret (SERVER_SECRET, else the one generated in DATA_DIR) as the database's, " +
        'after changing it on purpose: keys and webhook secrets made under the previous one no longer work',
    )
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      cli.withRuntime(
        async ({ database, config, clock }) => {
          const secret = loadServerSecret(config.serverSecret, config.dataDir);
          // Loaded here: the keys module brings the database's code, which the CLI's start must not load.
          const { adoptServerSecret } = await import('../keys/index.ts');
          const outcome = await adoptServerSecret(database.db, secret, clock.now());
          output(cli, opts, { outcome }, () =>
            outcome === 'adopted'
              ? "Recorded this server secret as the database's. Start every process with it; reissue the API keys " +
                '(keys rotate) and have customers re-create their webhook subscriptions (docs/operator-guide.md, ' +
                '"Server secret").'
              : "This server secret is the database's already: nothing changed.",
          );
        },
        { adoptingServerSecret: true },
      ),
    );
}
