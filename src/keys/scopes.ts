/** Spec section 5.3, in its order. */
export const SCOPES = [
  'read_assistants',
  'read_calls',
  'read_analytics',
  'outbound_calls',
  'manage_webhooks',
  'send_sms',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The dashboard's automation-platform preset (spec 5.5). */
export const AUTOMATION_PRESET: readonly Scope[] = ['read_assistants', 'read_calls', 'manage_webhooks'];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

export function permissionsMap(granted: readonly string[]): Record<Scope, boolean> {
  const map = {} as Record<Scope, boolean>;
  for (const s of SCOPES) map[s] = granted.includes(s);
  return map;
}
