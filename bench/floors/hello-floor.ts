/** Floor of scenario 2: a bare node:https JSON hello, no auth, no limits. */
import { sendJson, serveFloor } from './floor-server.ts';

const body = JSON.stringify({ hello: 'world' });
serveFloor((_req, res) => sendJson(res, 200, body));
