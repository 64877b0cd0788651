import net from 'node:net';
import { AppError, type Issue, invalidInput } from '../errors/index.ts';
import { isBlockedAddress } from './ssrf-guard.ts';

export const TARGET_URL_MAX = 2048;

/** What the operator allows as targets of webhooks and callback_url notifications (both off in production). */
export type TargetPolicy = { allowHttpTargets: boolean; allowPrivateTargets: boolean };

const DEV_ONLY = 'for local development only';
const HTTP_SETTING = 'WEBHOOK_ALLOW_HTTP';
const PRIVATE_SETTING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS';
const HTTP_MESSAGE = `Must use https; plain http needs ${HTTP_SETTING}=true, ${DEV_ONLY}.`;
const PRIVATE_MESSAGE =
  'Must be a public host: private, loopback, link-local and reserved addresses need ' +
  `${PRIVATE_SETTING}=true, ${DEV_ONLY}.`;
/** The refusals a development setting lifts, and that setting. */
const SETTING_OF = new Map([
  [HTTP_MESSAGE, HTTP_SETTING],
  [PRIVATE_MESSAGE, PRIVATE_SETTING],
]);

/**
 * What a process that sends webhooks says at start while a development setting relaxes the target policy (its log
 * and the server's banner); null under the production policy.
 */
export function relaxedPolicyWarning(policy: TargetPolicy): string | null {
  const relaxed = [
    policy.allowHttpTargets &&
      `${HTTP_SETTING} is on: targets may use plain http://, so deliveries and their signatures travel unencrypted.`,
    policy.allowPrivateTargets &&
      `${PRIVATE_SETTING} is on: targets may be private, loopback or link-local addresses, so a customer can ` +
        'make this server send requests into its own network (SSRF).',
  ].filter((line) => typeof line === 'string');
  if (relaxed.length === 0) return null;
  return `${relaxed.join(' ')} Webhooks and callback_url notifications are affected. For local development only: unset it in production.`;
}

/** Names that never lead to a public receiver, with or without the trailing dot of a fully qualified name. */
function isPrivateName(hostname: string): boolean {
  const name = hostname.replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal');
}

/**
 * The one check of a target URL at registration: webhook subscriptions (`url`) and outbound calls
 * (`callback_url`). IP literals (in any form the URL parser reads as one) are judged here; host names are
 * resolved and their addresses judged at every delivery (src/delivery/ssrf-guard.ts).
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy, path: string[]): Issue[] {
  const fail = (message: string): Issue[] => [{ path, message }];
  if (raw.length > TARGET_URL_MAX) return fail(`Must be at most ${TARGET_URL_MAX} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('Must be an absolute URL such as https://example.com/hooks.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('Must use https.');
  if (url.username || url.password)
    return fail('Must not contain credentials; verify our signature instead.');
  if (url.hash) return fail('Must not contain a fragment.');
  if (url.port === '0') return fail('Must not use port 0.');
  const messages: string[] = [];
  if (url.protocol === 'http:' && !policy.allowHttpTargets) {
    messages.push(HTTP_MESSAGE);
  }
  if (!policy.allowPrivateTargets) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) ? isBlockedAddress(host) : isPrivateName(host)) {
      messages.push(PRIVATE_MESSAGE);
    }
  }
  return messages.map((message) => ({ path, message }));
}

/**
 * `input.invalid` for these issues. When a development setting alone stands in the way (a local receiver on
 * a developer's machine), the detail names it, so the newcomer does not have to dig through `issues`.
 */
export function invalidTargetInput(issues: Issue[]): AppError {
  const settings = issues.map((issue) => SETTING_OF.get(issue.message));
  if (issues.length === 0 || settings.some((setting) => setting === undefined)) return invalidInput(issues);
  const names = [...new Set(settings)].map((setting) => `${setting}=true`).join(' and ');
  return new AppError(
    'input.invalid',
    `The target is refused only by a safeguard that ${names} lifts, ${DEV_ONLY} (never in production); see issues.`,
    { issues },
  );
}
