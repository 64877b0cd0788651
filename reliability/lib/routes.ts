import type { FastifyInstance } from 'fastify';

export type RouteId = `${string} ${string}`;

/**
 * Every route the app serves, as "METHOD /path" (HEAD left out: Fastify adds it to each GET), read from the
 * app itself so a route added tomorrow shows up here without anyone updating a list.
 */
export function appRoutes(app: FastifyInstance): RouteId[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const out: RouteId[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/.exec(line.replace(/\u00a0/g, ' '));
    if (!m?.[2] || m[1] === undefined || !m[3]) continue;
    const depth = m[1].length / 4;
    while (stack.length > 0 && (stack.at(-1)?.depth ?? -1) >= depth) stack.pop();
    const parent = stack.at(-1)?.path ?? '';
    const segment = m[2];
    const path =
      parent === '' ? segment : parent === '/' ? `/${segment.replace(/^\//, '')}` : `${parent}${segment}`;
    stack.push({ depth, path });
    for (const method of m[3].split(',').map((s) => s.trim())) {
      if (method !== 'HEAD') out.push(`${method} ${path}`);
    }
  }
  return [...new Set(out)].sort();
}
