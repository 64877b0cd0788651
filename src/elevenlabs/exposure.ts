/** Where the server listens and how it is reached (HOST, TLS_CERT_FILE, TRUSTED_PROXIES). */
export type Listening = { host: string; tlsCertFile: string | undefined; trustedProxies: readonly string[] };

const LOOPBACK = /^(127\.|::1$|localhost$|\[::1\]$)/;

/**
 * Why ElevenLabs could not deliver its webhooks to this server as configured, or null: a loopback HOST is reached
 * only through a proxy on this machine (TRUSTED_PROXIES); a server reached directly must present a certificate
 * ElevenLabs trusts (TLS_CERT_FILE/TLS_KEY_FILE), not the self-signed one made for development.
 */
export function webhookExposureWarning(l: Listening): string | null {
  const proxied = l.trustedProxies.length > 0;
  if (LOOPBACK.test(l.host) && !proxied) {
    return `ElevenLabs cannot reach /provider/elevenlabs/webhook: HOST=${l.host} listens on this machine only and no TRUSTED_PROXIES is set. Put a reverse proxy with TLS in front (listed in TRUSTED_PROXIES), or set HOST=0.0.0.0 with TLS_CERT_FILE and TLS_KEY_FILE (docs/provider-elevenlabs.md, "Exposing the webhook").`;
  }
  if (!l.tlsCertFile && !proxied) {
    return `ElevenLabs will refuse /provider/elevenlabs/webhook: the server presents the self-signed development certificate. Set TLS_CERT_FILE and TLS_KEY_FILE to a certificate for its public name, or put a reverse proxy with TLS in front (listed in TRUSTED_PROXIES) (docs/provider-elevenlabs.md, "Exposing the webhook").`;
  }
  return null;
}
