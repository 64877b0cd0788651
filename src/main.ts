import module from 'node:module';
import path from 'node:path';
import { localCli, processIo } from './cli/local-host.ts';
import { registerOperatorCommands, rootProgram } from './cli/program.ts';
import { runProgram } from './cli/run-program.ts';

// The entry point imports little: an operator command sent to a running server must start fast (serve.ts and the
// storage modules load only when a command needs them).
// Node keeps what it compiled (type-stripped TypeScript and the dependencies' code) in this folder and checks each
// entry against its file's contents: a start after the first skips about a third of its module loading.
module.enableCompileCache(
  path.join(import.meta.dirname, '..', 'node_modules', '.cache', 'voice-calls-api', 'compile-cache'),
);
const argv = process.argv.slice(2);
const program = rootProgram(processIo);
program
  .command('serve')
  .description('Start the HTTPS API (migrates first)')
  .action(async () => (await import('./serve.ts')).serve());
program
  .command('worker')
  .description('Run only the webhook delivery worker')
  .action(async () => (await import('./serve.ts')).work());
registerOperatorCommands(program, localCli(argv, processIo));
process.exitCode = await runProgram(program, argv, processIo);
