import { isObject } from './json.ts';

/** One request to an operation, as its examples make it: what the curl line and the SDK call send. */
export type RequestExample = {
  operationId: string;
  method: string;
  /** The document's server URL (`/api/v1`) and the path template under it (`/calls/{id}`). */
  server: string;
  path: string;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** Absent: the request has no body. */
  body?: unknown;
  authenticated: boolean;
};

/** Percent-encoded, `!'()*` too: safe inside a double-quoted shell word (no history expansion). */
const encode = (v: unknown): string =>
  encodeURIComponent(String(v)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** `/calls/{id}` with the example's values, and its query string. */
export function filledPath(r: RequestExample): string {
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(r.pathParams[name]));
  const query = Object.entries(r.query).map(([k, v]) => `${encode(k)}=${encode(v)}`);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/** `idempotency-key` → `Idempotency-Key`. */
const headerName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** The request as a curl command, reading the server's address from $BASE_URL and the key from $KEY. */
export function curlSample(r: RequestExample): string {
  const method = r.method.toUpperCase();
  const explicit = method !== 'GET' && !(method === 'POST' && r.body !== undefined);
  const lines = [`curl ${explicit ? `-X ${method} ` : ''}"$BASE_URL${r.server}${filledPath(r)}"`];
  if (r.authenticated) lines.push('-H "Authorization: Bearer $KEY"');
  for (const [name, value] of Object.entries(r.headers))
    lines.push(`-H ${shellQuote(`${headerName(name)}: ${String(value)}`)}`);
  if (r.body !== undefined) {
    lines.push('-H "Content-Type: application/json"', `-d ${shellQuote(JSON.stringify(r.body))}`);
  }
  return lines.join(' \\\n  ');
}

/** A JavaScript literal of a JSON value: single quotes, bare keys where they can be, on one line if short. */
export function literal(value: unknown, indent = ''): string {
  if (typeof value === 'string') return `'${JSON.stringify(value).slice(1, -1).replaceAll("'", "\\'")}'`;
  const inner = `${indent}  `;
  let parts: string[];
  let open: string;
  let close: string;
  if (Array.isArray(value)) {
    parts = value.map((v) => literal(v, inner));
    [open, close] = ['[', ']'];
  } else if (isObject(value)) {
    parts = Object.entries(value).map(
      ([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : literal(k)}: ${literal(v, inner)}`,
    );
    [open, close] = ['{ ', ' }'];
  } else return JSON.stringify(value ?? null);
  if (parts.length === 0) return open.trim() + close.trim();
  const oneLine = `${open}${parts.join(', ')}${close}`;
  if (oneLine.length + indent.length <= 80 && !oneLine.includes('\n')) return oneLine;
  return `${open.trim()}\n${parts.map((p) => `${inner}${p},`).join('\n')}\n${indent}${close.trim()}`;
}

/** The arguments of an SDK method that takes an optional object: none when it is empty. */
const optionalArg = (v: Record<string, unknown>) => (Object.keys(v).length > 0 ? literal(v) : '');
const id = (r: RequestExample) => literal(r.pathParams.id);
const bodyField = (r: RequestExample, name: string): unknown => (isObject(r.body) ? r.body[name] : undefined);

/** `result`: the name the sample gives the answer; empty for an operation that answers nothing (204). */
type SdkCall = { result: string; call: (r: RequestExample) => string };

/** The SDK's own method for each operation (sdk/src/client.ts); any other goes through `client.request`. */
export const SDK_CALLS: Record<string, SdkCall> = {
  whoami: { result: 'identity', call: () => 'client.whoami()' },
  listAssistants: { result: 'page', call: (r) => `client.assistants.list(${optionalArg(r.query)})` },
  listCalls: { result: 'page', call: (r) => `client.calls.list(${optionalArg(r.query)})` },
  getCall: { result: 'call', call: (r) => `client.calls.get(${id(r)})` },
  exportCalls: { result: 'csv', call: (r) => `client.calls.export(${optionalArg(r.query)})` },
  getCallTranscript: { result: 'transcript', call: (r) => `client.calls.transcript(${id(r)})` },
  deleteCall: { result: '', call: (r) => `client.calls.delete(${id(r)})` },
  createOutboundCall: {
    result: 'call',
    call: (r) => {
      const key = r.headers['idempotency-key'];
      const options = key === undefined ? '' : `, { idempotencyKey: ${literal(key)} }`;
      return `client.outboundCalls.create(${literal(r.body ?? {})}${options})`;
    },
  },
  dryRunOutboundCall: {
    result: 'dryRun',
    call: (r) => `client.outboundCalls.dryRun(${literal(r.body ?? {})})`,
  },
  createTestInboundCall: {
    result: 'call',
    call: (r) => `client.testMode.inboundCall(${literal(r.body ?? {})})`,
  },
  createTestInboundSms: {
    result: 'message',
    call: (r) => `client.testMode.inboundSms(${literal(r.body ?? {})})`,
  },
  sendSms: {
    result: 'message',
    call: (r) => {
      const key = r.headers['idempotency-key'];
      const options = key === undefined ? '' : `, { idempotencyKey: ${literal(key)} }`;
      return `client.sms.send(${literal(r.body ?? {})}${options})`;
    },
  },
  dryRunSms: { result: 'dryRun', call: (r) => `client.sms.dryRun(${literal(r.body ?? {})})` },
  listMessages: { result: 'page', call: (r) => `client.sms.list(${optionalArg(r.query)})` },
  getMessage: { result: 'message', call: (r) => `client.sms.get(${id(r)})` },
  getOutboundCallTranscript: {
    result: 'transcript',
    call: (r) => `client.outboundCalls.transcript(${id(r)})`,
  },
  createWebhookSubscription: {
    result: '{ created, subscription }',
    call: (r) => `client.webhookSubscriptions.create(${literal(r.body ?? {})})`,
  },
  listWebhookSubscriptions: {
    result: 'page',
    call: (r) => `client.webhookSubscriptions.list(${optionalArg(r.query)})`,
  },
  getWebhookSubscription: {
    result: 'subscription',
    call: (r) => `client.webhookSubscriptions.get(${id(r)})`,
  },
  deleteWebhookSubscription: {
    result: 'deleted',
    call: (r) => `client.webhookSubscriptions.delete(${id(r)})`,
  },
  rotateWebhookSecret: {
    result: 'rotated',
    call: (r) => `client.webhookSubscriptions.rotateSecret(${id(r)})`,
  },
  listWebhookEvents: { result: 'page', call: (r) => `client.webhookEvents.list(${optionalArg(r.query)})` },
  redeliverWebhookEvent: {
    result: '{ scheduled }',
    call: (r) => {
      const subscription = bodyField(r, 'subscription_id');
      return `client.webhookEvents.redeliver(${[id(r), ...(subscription === undefined ? [] : [literal(subscription)])].join(', ')})`;
    },
  },
  redeliverWebhookEventsSince: {
    result: '{ scheduled }',
    call: (r) => `client.webhookEvents.redeliverSince(${id(r)}, ${literal(bodyField(r, 'since'))})`,
  },
};

/** Any operation, through the SDK's `request` (it adds the key, retries what is safe, throws ProblemError). */
function requestCall(r: RequestExample): string {
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(r.pathParams[name]));
  const options = {
    ...(Object.keys(r.query).length > 0 ? { query: r.query } : {}),
    ...(Object.keys(r.headers).length > 0 ? { headers: r.headers } : {}),
    ...(r.body === undefined ? {} : { body: r.body }),
  };
  const rest = Object.keys(options).length > 0 ? `, ${literal(options)}` : '';
  return `client.request(${literal(r.method.toUpperCase())}, ${literal(path)}${rest})`;
}

/** The request as a short TypeScript program with the SDK: key and address from the environment. */
export function sdkSample(r: RequestExample): string {
  const known = SDK_CALLS[r.operationId];
  const [result, call] = known ? [known.result, known.call(r)] : ['{ status, data }', requestCall(r)];
  return [
    "import { VoiceCallsClient } from '@voice-calls/sdk';",
    '',
    'const client = new VoiceCallsClient({',
    "  apiKey: process.env.VOICE_CALLS_API_KEY ?? '',",
    "  baseUrl: process.env.BASE_URL ?? '',",
    '});',
    result ? `const ${result} = await ${call};` : `await ${call};`,
  ].join('\n');
}
