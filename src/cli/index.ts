export { localCli, processIo } from './local-host.ts';
export { registerOperatorCommands, rootProgram } from './program.ts';
export { runProgram } from './run-program.ts';
export { startControlSocket } from './server-host.ts';
export { operatorAccess, readStartState, startHints } from './start-hints.ts';
