/**
 * The spec leaves voice_id values open. We accept the voices of the provider's catalogue; the
 * built-in simulator offers these. A real provider adapter would supply its own list.
 */
export const VOICE_IDS = [
  'alloy',
  'aria',
  'breeze',
  'cove',
  'ember',
  'juniper',
  'maple',
  'orion',
  'sage',
  'vale',
] as const;
export const isVoiceId = (s: string): boolean => (VOICE_IDS as readonly string[]).includes(s);
