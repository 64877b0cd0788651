import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Twilio's REST API (2010-04-01) for contract tests: real HTTP on loopback, answering what the SDK asks
 * for sending and reading messages, the account and its numbers, with the wire shapes of the SDK's resources
 * (twilio/lib/rest/api/v2010/account/message.d.ts: MessageResource). Tests script answers per recipient, per sender,
 * per message or for the next request; Twilio's magic test numbers answer as with its test credentials.
 */
export type WireMessage = {
  account_sid: string;
  api_version: string;
  body: string;
  date_created: string;
  date_sent: string | null;
  date_updated: string;
  direction: 'outbound-api' | 'inbound';
  error_code: number | null;
  error_message: string | null;
  from: string | null;
  messaging_service_sid: string | null;
  num_media: string;
  num_segments: string;
  price: string | null;
  price_unit: string;
  sid: string;
  status: string;
  subresource_uris: Record<string, string>;
  to: string;
  uri: string;
};

export type WireNumber = {
  sid: string;
  phone_number: string;
  friendly_name: string;
  capabilities: Record<string, unknown>;
};

/** A scripted answer: Twilio's error, none at all, a raw body, or the normal answer reshaped (drift). */
export type FakeAnswer =
  | { kind: 'error'; status: number; code: number | null; message: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  | { kind: 'reshape'; reshape: (wire: Record<string, unknown>) => unknown };

export type FakeRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  authorized: boolean;
};

/** Twilio's messages for the codes tests use (https://www.twilio.com/docs/api/errors). */
const MESSAGES: Record<number, string> = {
  20003: 'Authenticate',
  20404: 'The requested resource was not found',
  20429: 'Too Many Requests',
  21211: "The 'To' number is not a valid phone number.",
  21212: "The 'From' number is not a valid phone number, shortcode, or alphanumeric sender ID.",
  21217: 'Phone number does not appear to be valid',
  21408: "Permission to send an SMS has not been enabled for the region indicated by the 'To' number",
  21602: 'Message body is required.',
  21603: "A 'From' phone number is required.",
  21604: "A 'To' phone number is required.",
  21606:
    "The 'From' phone number provided is not a valid message-capable Twilio phone number for this destination.",
  21610: 'Attempt to send to unsubscribed recipient',
  21612: "The 'To' phone number is not currently reachable via SMS.",
  21614: "'To' number is not a valid mobile number",
  21659: "'From' is not a Twilio phone number or Short Code country mismatch",
  21660: "Mismatch between the 'From' number and the account",
};

/** Twilio's answer with this error code (HTTP 400 unless said otherwise). */
export const twilioError = (
  code: number | null,
  status = 400,
  headers?: Record<string, string>,
): FakeAnswer => ({
  kind: 'error',
  status,
  code,
  message: (code && MESSAGES[code]) || `HTTP ${status}`,
  ...(headers ? { headers } : {}),
});

/** Twilio's magic numbers (test credentials): a send to or from them is refused with these codes. */
const MAGIC_TO: Record<string, number> = {
  '+15005550001': 21211,
  '+15005550002': 21612,
  '+15005550003': 21408,
  '+15005550004': 21610,
  '+15005550009': 21614,
};
const MAGIC_FROM: Record<string, number> = { '+15005550001': 21212, '+15005550007': 21606 };

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** Twilio's dates: RFC 2822 in UTC, `Thu, 15 Jan 2026 12:00:00 +0000`. */
export const twilioDate = (at: Date): string => at.toUTCString().replace('GMT', '+0000');

export type FakeTwilio = {
  url: string;
  accountSid: string;
  requests: FakeRequest[];
  messages: Map<string, WireMessage>;
  numbers: WireNumber[];
  account: { status: string; friendly_name: string };
  /** The largest page of numbers the fake answers, whatever the client asks for (to make it page). */
  pageSizeLimit: number;
  /** Requests left without an answer, and how many of those the client gave up on (closed the connection). */
  hung: { count: number; abandoned: number };
  onSendTo(to: string, answer: FakeAnswer): void;
  onSendFrom(from: string, answer: FakeAnswer): void;
  onFetch(sid: string, answer: FakeAnswer): void;
  /** The next request, whatever it asks, gets this answer (queued: one per request). */
  once(answer: FakeAnswer): void;
  /** A message as Twilio holds it, as if sent earlier; returns its SID. */
  addMessage(fields?: Partial<WireMessage>): string;
  update(sid: string, fields: Partial<WireMessage>): void;
  reset(): void;
  close(): Promise<void>;
};

export async function startFakeTwilio(options: {
  accountSid: string;
  authToken: string;
  now?: () => Date;
}): Promise<FakeTwilio> {
  const { accountSid, authToken } = options;
  const now = options.now ?? (() => new Date());
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  const toScripts = new Map<string, FakeAnswer>();
  const fromScripts = new Map<string, FakeAnswer>();
  const fetchScripts = new Map<string, FakeAnswer>();
  const queue: FakeAnswer[] = [];
  const hung = { count: 0, abandoned: 0 };
  const requests: FakeRequest[] = [];
  const messages = new Map<string, WireMessage>();
  const numbers: WireNumber[] = [];
  const account = { status: 'active', friendly_name: 'Fake account' };

  function message(fields: Partial<WireMessage>): WireMessage {
    const sid = fields.sid ?? `SM${hex(16)}`;
    const at = twilioDate(now());
    return {
      account_sid: accountSid,
      api_version: '2010-04-01',
      body: '',
      date_created: at,
      date_sent: null,
      date_updated: at,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: null,
      messaging_service_sid: null,
      num_media: '0',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      sid,
      status: 'queued',
      subresource_uris: { media: `${base}/Messages/${sid}/Media.json` },
      to: '',
      uri: `${base}/Messages/${sid}.json`,
      ...fields,
    };
  }

  function send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  /** Answers with the script if there is one; false when the normal answer is due, with `wire`. */
  function scripted(
    res: http.ServerResponse,
    answer: FakeAnswer | undefined,
    wire?: unknown,
    status = 200,
  ): boolean {
    if (!answer) return false;
    if (answer.kind === 'hang') {
      hung.count++;
      res.on('close', () => {
        if (!res.writableEnded) hung.abandoned++;
      });
      return true;
    }
    if (answer.kind === 'raw') {
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
      res.end(answer.body);
      return true;
    }
    if (answer.kind === 'error') {
      const body = {
        code: answer.code,
        message: answer.message,
        more_info: `https://www.twilio.com/docs/errors/${answer.code ?? answer.status}`,
        status: answer.status,
      };
      send(res, answer.status, body, answer.headers);
      return true;
    }
    if (wire === undefined) return false;
    send(res, status, answer.reshape(structuredClone(wire) as Record<string, unknown>));
    return true;
  }

  function create(res: http.ServerResponse, form: Record<string, string>) {
    const { To: to, From: from, MessagingServiceSid: service, Body: body } = form;
    const refusal = (to && MAGIC_TO[to]) || (from && MAGIC_FROM[from]) || null;
    const answer =
      (to ? toScripts.get(to) : undefined) ??
      (from ? fromScripts.get(from) : undefined) ??
      (refusal ? twilioError(refusal) : undefined);
    if (answer && answer.kind !== 'reshape') return void scripted(res, answer);
    if (!to) return void scripted(res, twilioError(21604));
    if (!from && !service) return void scripted(res, twilioError(21603));
    if (!body) return void scripted(res, twilioError(21602));
    // A Messaging Service takes the message first (`accepted`) and picks the sender later.
    const created = message({
      to,
      body,
      from: service ? null : (from ?? null),
      messaging_service_sid: service ?? null,
      status: service ? 'accepted' : 'queued',
    });
    messages.set(created.sid, created);
    if (scripted(res, answer, created, 201)) return;
    send(res, 201, created);
  }

  function fetch(res: http.ServerResponse, sid: string) {
    const found = messages.get(sid);
    const answer = fetchScripts.get(sid);
    if (answer && answer.kind !== 'reshape') return void scripted(res, answer);
    if (!found) return void scripted(res, twilioError(20404, 404));
    if (scripted(res, answer, found)) return;
    send(res, 200, found);
  }

  function listNumbers(res: http.ServerResponse, query: Record<string, string>) {
    const size = Math.max(1, Math.min(fake.pageSizeLimit, Number(query.PageSize ?? 50)));
    const page = Number(query.Page ?? 0);
    const slice = numbers.slice(page * size, (page + 1) * size);
    const uri = (p: number) => `${base}/IncomingPhoneNumbers.json?PageSize=${size}&Page=${p}`;
    const more = (page + 1) * size < numbers.length;
    send(res, 200, {
      incoming_phone_numbers: slice.map((n) => ({
        account_sid: accountSid,
        api_version: '2010-04-01',
        beta: false,
        status: 'in-use',
        uri: `${base}/IncomingPhoneNumbers/${n.sid}.json`,
        ...n,
      })),
      end: page * size + slice.length - 1,
      first_page_uri: uri(0),
      next_page_uri: more ? `${uri(page + 1)}&PageToken=PA${hex(8)}` : null,
      page,
      page_size: size,
      previous_page_uri: page > 0 ? uri(page - 1) : null,
      start: page * size,
      uri: uri(page),
    });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const authorized = req.headers.authorization === expectedAuth;
      const query = Object.fromEntries(url.searchParams);
      requests.push({ method: req.method ?? '', path: url.pathname, query, form, authorized });
      if (scripted(res, queue.shift())) return;
      if (!authorized || !url.pathname.startsWith(`${base}`))
        return void scripted(res, twilioError(20003, 401));
      const path = url.pathname.slice(base.length);
      const sid = /^\/Messages\/([^/]+)\.json$/.exec(path)?.[1];
      if (req.method === 'POST' && path === '/Messages.json') return create(res, form);
      if (req.method === 'GET' && sid) return fetch(res, decodeURIComponent(sid));
      if (req.method === 'GET' && path === '.json') {
        return send(res, 200, {
          auth_token: authToken,
          date_created: twilioDate(now()),
          date_updated: twilioDate(now()),
          owner_account_sid: accountSid,
          sid: accountSid,
          subresource_uris: {},
          type: 'Full',
          uri: `${base}.json`,
          ...account,
        });
      }
      if (req.method === 'GET' && path === '/IncomingPhoneNumbers.json') return listNumbers(res, query);
      scripted(res, twilioError(20404, 404));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeTwilio = {
    url: `http://127.0.0.1:${port}`,
    pageSizeLimit: 1000,
    accountSid,
    requests,
    messages,
    numbers,
    account,
    hung,
    onSendTo: (to, answer) => void toScripts.set(to, answer),
    onSendFrom: (from, answer) => void fromScripts.set(from, answer),
    onFetch: (sid, answer) => void fetchScripts.set(sid, answer),
    once: (answer) => void queue.push(answer),
    addMessage(fields = {}) {
      const created = message({ to: '+14155550100', from: '+14155550199', body: 'Hello', ...fields });
      messages.set(created.sid, created);
      return created.sid;
    },
    update(sid, fields) {
      const found = messages.get(sid);
      if (found) messages.set(sid, { ...found, date_updated: twilioDate(now()), ...fields });
    },
    reset() {
      toScripts.clear();
      fromScripts.clear();
      fetchScripts.clear();
      queue.length = 0;
      requests.length = 0;
      hung.count = 0;
      hung.abandoned = 0;
      account.status = 'active';
      numbers.length = 0;
      fake.pageSizeLimit = 1000;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
