/** The OpenAPI document as plain JSON, read without trusting its shape. */
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document's `paths`, in document order. */
export function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  const paths = isObject(doc.paths) ? doc.paths : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = isObject(item) ? item[method] : undefined;
      return isObject(op) ? [{ method, path, op }] : [];
    }),
  );
}

/** The component schema a `$ref` names, or the schema itself. */
export function resolved(doc: Json, schema: unknown): unknown {
  if (!isObject(schema) || typeof schema.$ref !== 'string') return schema;
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  return schemas[schema.$ref.slice('#/components/schemas/'.length)];
}
