export type { ControlRequest, ControlResponse } from './protocol.ts';
export { ControlSocketError, controlSocketPath, embeddedDataDir } from './protocol.ts';
export { sendControlRequest } from './socket-client.ts';
export type { ControlSocket } from './socket-server.ts';
export { listenControlSocket } from './socket-server.ts';
