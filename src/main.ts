import module from 'node:module';
import { localCli, processIo, registerOperatorCommands, rootProgram, runProgram } from './cli/index.ts';
import { COMPILE_CACHE_DIR } from './compile-cache.ts';

// The entry point imports little: an operator command sent to a running server must start fast (serve.ts and the
// storage modules load only when a command needs them).
module.enableCompileCache(COMPILE_CACHE_DIR);
const argv = process.argv.slice(2);
const program = rootProgram(processIo);
program
  .command('serve')
  .description('Start the HTTPS API (migrates first)')
  .action(async () => {
    // The database opens (PGlite on a thread of its own) while the server's modules load, on the other core.
    const [{ loadConfig }, { openStorage }] = await Promise.all([
      import('./config.ts'),
      import('./storage.ts'),
    ]);
    const config = loadConfig();
    const opening = openStorage(config, (line) => process.stderr.write(line));
    // Awaited by serve; this only keeps a failure that comes while its modules load from counting as unhandled.
    opening.catch(() => {});
    await (await import('./serve.ts')).serve(config, opening);
  });
program
  .command('worker')
  .description('Run only the webhook delivery worker')
  .action(async () => (await import('./serve.ts')).work());
const cli = localCli(argv, processIo);
registerOperatorCommands(program, cli);
process.exitCode = await runProgram(program, argv, cli);
