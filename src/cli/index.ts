export type { Cli, CliIo } from './context.ts';
export { localCli, processIo } from './local-host.ts';
export { registerOperatorCommands, rootProgram } from './program.ts';
export { bufferedIo, runProgram } from './run-program.ts';
