import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { JSONSchema } from 'zod/v4/core';
import { API_PREFIX } from '../http/index.ts';
import { addExamples } from './examples.ts';
import { isObject, type Json } from './json.ts';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const SECURITY_SCHEME = 'apiKey';

const DESCRIPTION = `JSON over HTTPS for voice assistants, calls, transcripts, outbound calls and signed webhooks.

- **Authentication**: \`Authorization: Bearer svc_live_…\` on every request (never in the URL). Each operation
  names the scope it needs; a key without it gets \`403 perm.denied\`.
- **Errors**: RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` and the
  \`request_id\` (also in \`X-Request-Id\`). \`input.invalid\` lists every problem in \`issues\`.
- **Rate limits**: 60 requests per minute per customer and per key (sliding window); \`X-RateLimit-*\` on every
  response, \`Retry-After\` on 429.
- **Pagination**: pass \`next_cursor\` back as \`cursor\` until it is null.
- **Versioning**: additive changes (new fields, endpoints, events) happen within v1: ignore unknown fields.`;

/** The test numbers, served in the reference (the simulator plays them: src/simulator/simulator-plan.ts). */
const TEST_MODE_DESCRIPTION = `A \`svc_test_\` key (where the operator enabled test mode) uses the same API on the
customer's test data only: its calls, subscriptions, events and idempotency keys are never seen by a live key, and
the other way round. Its calls go to the built-in simulator, never to a real phone, and cost nothing; objects and
events carry \`livemode: false\`. The destination number chooses the outcome (the fictional 555-0100–0199 block
of any US area code); any other valid number completes:

| \`to_number\` | Outcome |
|---|---|
| \`+1NXX5550199\` (and any number not below) | answered, completed, transcript and insights |
| \`+1NXX5550191\` | \`busy\` |
| \`+1NXX5550192\` | \`no_answer\` (rings 30 s) |
| \`+1NXX5550193\` | \`failed\` |
| \`+1NXX5550195\` | \`canceled\` |
| \`+1NXX5550196\` | voicemail: \`completed\`, \`disconnect_reason\` \`voicemail\` |
| \`+1NXX5550197\` | completed; its transcript settles for 60 s (202, then 200) |
| \`+1NXX5550198\` | 502 \`carrier.unavailable\`: the provider is down, nothing placed |
| \`+1NXX5550190\` | 503 \`carrier.busy\` with \`Retry-After: 5\`: the provider's concurrency limit |
| a number outside the key's allowlist, e.g. \`+442079460199\` | 403 \`outbound.country_not_allowed\` |

\`POST /test/inbound-calls\` makes a simulated caller ring one of the customer's assistants.`;

const TAGS = [
  { name: 'Authentication', description: 'Check a key and its scopes.' },
  { name: 'Assistants', description: 'The voice assistants of the customer.' },
  { name: 'Calls', description: 'Inbound and outbound calls.' },
  { name: 'Transcripts', description: 'Transcripts of calls, fetched on demand and stored.' },
  { name: 'Outbound calls', description: 'Place calls through an assistant.' },
  {
    name: 'Text messages',
    description:
      "Send texts from an assistant's numbers and read what was sent and received (scope `send_sms`); `sms.sent` " +
      'and `sms.received` tell of each as it happens.',
  },
  { name: 'Webhook subscriptions', description: 'Where signed events are delivered.' },
  { name: 'Webhook events', description: 'What was sent, every attempt, and redelivery.' },
  { name: 'Test mode', description: TEST_MODE_DESCRIPTION },
  { name: 'Documentation', description: 'This document.' },
];

const header = (description: string, schema: Json) => ({ description, schema });
const HEADERS = {
  'X-Request-Id': header('UUID of this request; equals `request_id` in problem bodies.', {
    type: 'string',
    format: 'uuid',
  }),
  'X-RateLimit-Limit': header('Ceiling of the window reported (requests per minute).', { type: 'integer' }),
  'X-RateLimit-Remaining': header('The lower of the per-customer and per-key remaining counts.', {
    type: 'integer',
  }),
  'X-RateLimit-Reset': header('ISO-8601 time when the reported window is full again.', {
    type: 'string',
    format: 'date-time',
  }),
  'Retry-After': header('Whole seconds until a retry can be admitted (429 only).', { type: 'integer' }),
  Location: header('Path of the created call.', { type: 'string' }),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer to an earlier request with the same key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
};
const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Response headers beyond the ones every response carries, by operation and status. */
const EXTRA_HEADERS: Record<string, Record<string, (keyof typeof HEADERS)[]>> = {
  createOutboundCall: { '201': ['Location', 'Idempotent-Replayed'] },
  sendSms: { '201': ['Location', 'Idempotent-Replayed'] },
};

/**
 * Request schemas (strict objects) keep `additionalProperties: false`: the API refuses unknown fields.
 * Response objects are plain `z.object`s and drop it: clients must accept fields added later (spec 9.2).
 */
const override = (ctx: { zodSchema: { _zod: { def: unknown } }; jsonSchema: JSONSchema.BaseSchema }) => {
  const def = ctx.zodSchema._zod.def;
  if (!isObject(def)) return;
  if (def.type === 'object' && def.catchall === undefined && ctx.jsonSchema.additionalProperties === false) {
    delete ctx.jsonSchema.additionalProperties;
  }
  // zod spells out its UUID pattern next to `format: uuid`; the format says it.
  if (ctx.jsonSchema.format === 'uuid') delete ctx.jsonSchema.pattern;
  // A query integer documented over a digits-only string check: the pattern is the string's, not the number's.
  if (ctx.jsonSchema.type === 'integer') delete ctx.jsonSchema.pattern;
  // As fastify-type-provider-zod's default: a union member that cannot be represented is left out.
  if (def.type === 'union' && Array.isArray(ctx.jsonSchema.anyOf)) {
    ctx.jsonSchema.anyOf = ctx.jsonSchema.anyOf.filter((s) => Object.keys(s).length > 0);
  }
};
const zodToJsonConfig = { override };
const zodRoute = createJsonSchemaTransform({ zodToJsonConfig });
const zodComponents = createJsonSchemaTransformObject({ zodToJsonConfig });

/**
 * Every /api/v1 route goes in, relative to the server URL; everything else (dashboard, ops, this
 * reference page) stays out. Security comes from the route's own `config.scope`, which the guard enforces.
 */
const documentRoute: SwaggerTransform = (input) => {
  const { url, route } = input;
  if (!url.startsWith(`${API_PREFIX}/`)) return { schema: { hide: true }, url };
  const { schema } = zodRoute(input);
  const config = route.config ?? {};
  const scope = 'scope' in config ? config.scope : undefined;
  const noAuth: Record<string, string[]> = {};
  // The scope goes in `x-required-scope` and the description, not in the requirement: scopes there belong
  // to OAuth schemes, and linters (Spectral's oas3-operation-security-defined) refuse them on a bearer scheme.
  const security: Record<string, string[]>[] = config.publicDocs
    ? []
    : [{ [SECURITY_SCHEME]: [] }, ...(config.challengeProbe ? [noAuth] : [])];
  const needs = config.publicDocs
    ? 'No authentication.'
    : scope
      ? `Scope: \`${scope}\`.`
      : 'Any valid key; no scope needed.';
  const description = [schema.description, needs].filter(Boolean).join('\n\n');
  return {
    schema: { ...schema, description, security, ...(scope ? { 'x-required-scope': scope } : {}) },
    url,
  };
};

/** Every response of every operation carries the spec's headers; 429 also Retry-After. */
function addResponseHeaders(doc: Json): void {
  if (!isObject(doc.paths)) return;
  for (const item of Object.values(doc.paths)) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      const extra = EXTRA_HEADERS[String(op.operationId)] ?? {};
      for (const [status, response] of Object.entries(op.responses)) {
        if (!isObject(response)) continue;
        const names: (keyof typeof HEADERS)[] = [
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          ...(status === '429' ? (['Retry-After'] as const) : []),
          ...(extra[status] ?? []),
        ];
        response.headers = Object.fromEntries(names.map((n) => [n, ref(n)]));
      }
    }
  }
}

/**
 * @fastify/swagger marks every request body required; one with no required field may be left out entirely
 * (the guard accepts a POST without a body there: `curl -X POST`).
 */
function optionalBodies(doc: Json): void {
  const components =
    isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const resolve = (schema: unknown): unknown =>
    isObject(schema) && typeof schema.$ref === 'string'
      ? components[schema.$ref.slice('#/components/schemas/'.length)]
      : schema;
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const op of Object.values(isObject(item) ? item : {})) {
      if (!isObject(op) || !isObject(op.requestBody) || !isObject(op.requestBody.content)) continue;
      const schemas = Object.values(op.requestBody.content).map((m) =>
        resolve(isObject(m) ? m.schema : null),
      );
      const needsNothing = (s: unknown) =>
        isObject(s) && s.type === 'object' && !(Array.isArray(s.required) && s.required.length > 0);
      if (schemas.length > 0 && schemas.every(needsNothing)) op.requestBody.required = false;
    }
  }
}

/** Components no operation reaches (zod makes an input and an output copy of each) are left out. */
function pruneSchemas(doc: Json): void {
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const reached = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (!isObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        const name = child.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          walk(schemas[name]);
        }
      } else walk(child);
    }
  };
  walk(doc.paths);
  walk(doc.webhooks);
  components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
}

/** We call the receiver, so no API key is involved: authenticity is the signature its headers describe. */
const withoutApiKey = (webhooks: Json): Json =>
  Object.fromEntries(
    Object.entries(webhooks).map(([event, item]) => [
      event,
      isObject(item)
        ? Object.fromEntries(
            Object.entries(item).map(([method, op]) => [method, isObject(op) ? { ...op, security: [] } : op]),
          )
        : item,
    ]),
  );

const finishDocument =
  (webhooks: Json): SwaggerTransformObject =>
  (input) => {
    const doc = zodComponents(input) as Json;
    doc.webhooks = withoutApiKey(webhooks);
    addResponseHeaders(doc);
    optionalBodies(doc);
    pruneSchemas(doc);
    addExamples(doc);
    // Stable order: the generated SDK types are committed and compared.
    const components = isObject(doc.components) ? doc.components : {};
    if (isObject(components.schemas)) {
      components.schemas = Object.fromEntries(
        Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)),
      );
    }
    return doc;
  };

/**
 * Must be registered before the routes: it collects them as they are added. The `webhooks` section (the events
 * we send) is handed in by the composition, so this plugin knows no domain.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  webhooks: Record<string, unknown>,
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Voice Assistant Calls API',
        version: '1.0.0',
        description: DESCRIPTION,
        // The operator of each deployment answers; there is no public licence (the project is private).
        contact: { name: 'The operator of this service: quote the X-Request-Id of the request in question' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: API_PREFIX, description: 'This server' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svc_live_…',
            description: 'An API key from the dashboard: `Authorization: Bearer svc_live_…`.',
          },
        },
        headers: HEADERS,
      },
    },
    transform: documentRoute,
    transformObject: finishDocument(webhooks),
  });
}
