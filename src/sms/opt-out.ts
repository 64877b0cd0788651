/**
 * The keywords carriers and Twilio honour in a reply (Twilio's defaults, matched as the whole message, any case):
 * the recipient opts out of a sender, or back in. Twilio answers them itself and refuses later sends (21610); we
 * keep the same list so a send is refused here first, with the reason, and the simulator behaves the same.
 */
const STOP = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE']);
const START = new Set(['START', 'YES', 'UNSTOP', 'OPTIN']);

export function optOutKeyword(body: string): 'stop' | 'start' | null {
  const word = body.trim().toUpperCase();
  if (STOP.has(word)) return 'stop';
  if (START.has(word)) return 'start';
  return null;
}
