import { connect } from 'node:tls';

export type RawResponse = {
  status: number;
  /** Header names lower-cased; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
};

/**
 * Sends `head` (request line and headers, without the blank line) and `body` as written, over TLS on a
 * fresh connection, and reads the answer until the server closes (send `Connection: close`). For what HTTP clients refuse to send or
 * rewrite on the way: dot segments and encoded prefixes in the path, repeated headers, bytes the parser
 * rejects. `localAddress` (on the loopback range) acts as another client address.
 */
export function rawRequest(
  url: string,
  ca: string,
  head: string,
  options: { body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const { body = '', localAddress } = options;
  return new Promise((resolve, reject) => {
    const target = { host: hostname, port: Number(port), ca, servername: 'localhost', localAddress };
    const socket = connect(target, () => {
      // Not `end()`: Node's server aborts a request whose client half-closes before the answer.
      socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`No complete HTTP response: ${JSON.stringify(raw.toString('latin1'))}`);
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const length = Number(headers['content-length']);
  const rest = raw.subarray(end + 4);
  const text = (Number.isNaN(length) ? rest : rest.subarray(0, length)).toString('utf8');
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status, headers, text, body };
}
