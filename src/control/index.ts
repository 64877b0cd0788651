export type { ControlRequest, ControlResponse } from './protocol.ts';
export { controlSocketPath } from './protocol.ts';
export type { ControlSocket } from './socket-server.ts';
export { listenControlSocket } from './socket-server.ts';
