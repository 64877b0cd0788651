import { parse } from 'node:querystring';
import { API_PREFIX } from '../http/index.ts';

const PLACE = `${API_PREFIX}/outbound-calls`;
export const DRY_RUN_PATH = `${PLACE}/dry-run`;

/**
 * The earlier form of the dry run, `POST /outbound-calls?dry_run=true`, kept for v1 clients: routed to
 * `POST /outbound-calls/dry-run` before the router looks, so it is that operation (its one success shape, its
 * checks, its documented answer) and placement never sees it; `dry_run=false` is the same as no parameter.
 * Any other value, or the parameter twice, is left for placement's validation to refuse (422), never placed.
 * Other parameters are kept as sent. Fastify's router calls this for every request (its `rewriteUrl`).
 */
export function dryRunAlias(method: string | undefined, url: string): string {
  if (method !== 'POST') return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const path = url.slice(0, q);
  if (path !== PLACE && path !== `${PLACE}/`) return url;
  // node:querystring reads as Fastify's parser (fast-querystring) does: `+`, percent escapes, repeated keys.
  const flag = parse(url.slice(q + 1)).dry_run;
  if (flag !== 'true' && flag !== 'false') return url;
  const rest = url
    .slice(q + 1)
    .split('&')
    .filter((pair) => !('dry_run' in parse(pair)))
    .join('&');
  return `${flag === 'true' ? DRY_RUN_PATH : path}${rest ? `?${rest}` : ''}`;
}
