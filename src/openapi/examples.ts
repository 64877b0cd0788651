import { curlSample, type RequestExample, sdkSample } from './code-samples.ts';
import { exampleFor } from './example-values.ts';
import { isObject, type Json, operationsOf, str } from './json.ts';

const JSON_MEDIA = 'application/json';

/** What a parameter's example is: the one written for it, else one made from its schema. */
function parameterValue(doc: Json, p: Json, operationId: string): unknown {
  return 'example' in p ? p.example : exampleFor(doc, p.schema, { name: `${operationId}.${str(p.name)}` });
}

/**
 * The request of an operation's examples: every required parameter and each optional one its author gave an
 * example; the body with its required fields and those given an example (none when that leaves an optional
 * body empty).
 */
function requestExample(doc: Json, server: string, method: string, path: string, op: Json): RequestExample {
  const operationId = str(op.operationId);
  const parameters = (Array.isArray(op.parameters) ? op.parameters : []).filter(isObject);
  const shown = parameters.filter((p) => p.required === true || 'example' in p);
  const byPlace = (place: string) =>
    Object.fromEntries(
      shown.filter((p) => p.in === place).map((p) => [str(p.name), parameterValue(doc, p, operationId)]),
    );
  const requestBody = isObject(op.requestBody) ? op.requestBody : null;
  const media = requestBody && isObject(requestBody.content) ? requestBody.content[JSON_MEDIA] : undefined;
  let body: unknown;
  if (isObject(media)) {
    body = exampleFor(doc, media.schema, { name: operationId, requiredOnly: true });
    const empty = isObject(body) && Object.keys(body).length === 0;
    if (requestBody?.required === false && empty) body = undefined;
  }
  return {
    operationId,
    method,
    server,
    path,
    pathParams: byPlace('path'),
    query: byPlace('query'),
    headers: byPlace('header'),
    ...(body === undefined ? {} : { body }),
    authenticated: Array.isArray(op.security) && op.security.length > 0,
  };
}

/**
 * Gives every operation of the document its examples, made from the schemas it documents (themselves made from
 * the zod schemas the server validates with): each parameter of the request its `example`, the request body and
 * each 2xx JSON response theirs, and the request as `x-codeSamples` (curl, and a program with the SDK), the
 * vendor extension Redoc and other renderers show. Error answers are left to the `Problem` schema's example.
 */
export function addExamples(doc: Json): void {
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
  const server = str(servers[0]?.url);
  for (const { method, path, op } of operationsOf(doc)) {
    const request = requestExample(doc, server, method, path, op);
    for (const p of (Array.isArray(op.parameters) ? op.parameters : []).filter(isObject)) {
      const name = str(p.name);
      const value = { path: request.pathParams, query: request.query, header: request.headers }[str(p.in)]?.[
        name
      ];
      if (value !== undefined) p.example = value;
    }
    const requestMedia =
      isObject(op.requestBody) && isObject(op.requestBody.content)
        ? op.requestBody.content[JSON_MEDIA]
        : null;
    if (isObject(requestMedia) && request.body !== undefined) requestMedia.example = request.body;
    for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
      if (!status.startsWith('2') || !isObject(response) || !isObject(response.content)) continue;
      for (const [type, media] of Object.entries(response.content)) {
        if (!isObject(media)) continue;
        // A text body (the export's CSV and NDJSON) shows the example its schema carries.
        if (type === JSON_MEDIA) media.example = exampleFor(doc, media.schema);
        else if (isObject(media.schema) && Array.isArray(media.schema.examples))
          media.example = media.schema.examples[0];
      }
    }
    op['x-codeSamples'] = [
      { lang: 'Shell', label: 'curl', source: curlSample(request) },
      { lang: 'TypeScript', label: 'SDK', source: sdkSample(request) },
    ];
  }
}
