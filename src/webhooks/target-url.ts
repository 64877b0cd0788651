import net from 'node:net';
import type { Issue } from '../errors/app-error.ts';
import { isBlockedAddress } from './ssrf-guard.ts';

const MAX_URL_LENGTH = 2048;

/**
 * Checks a webhook target when it is registered. Host names are checked again, resolved, at every
 * delivery (src/webhooks/ssrf-guard.ts); here we refuse what is wrong on its face.
 */
export function checkTargetUrl(
  raw: string,
  policy: { allowHttpTargets: boolean; allowPrivateTargets: boolean },
  path: string[] = ['body', 'url'],
): Issue[] {
  const fail = (message: string): Issue[] => [{ path, message }];
  if (raw.length > MAX_URL_LENGTH) return fail(`Must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('Must be an absolute URL such as https://example.com/hooks.');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttpTargets && url.protocol === 'http:')) {
    return fail('Must use https.');
  }
  if (url.username || url.password) return fail('Must not contain credentials.');
  if (url.hash) return fail('Must not contain a fragment.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivateTargets) {
    if (net.isIP(host) && isBlockedAddress(host))
      return fail('Must not point to a private, loopback or link-local address.');
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) {
      return fail('Must be a public host name.');
    }
  }
  return [];
}
