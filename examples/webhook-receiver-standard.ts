/**
 * A webhook receiver on plain node:http that verifies every delivery with `standardwebhooks` (the Standard
 * Webhooks reference library; `svix`'s `Webhook` is a drop-in) instead of this project's SDK, answers 2xx
 * quickly, and de-duplicates on `webhook-id` (the event id: delivery is at-least-once).
 *
 *   WEBHOOK_SECRET=whsec_… PORT=3000 node examples/webhook-receiver-standard.ts
 *
 * The secret is the subscription's `whsec_…` as given. A secret from before standard base64 (it has `-` or
 * `_`) needs its standard-base64 spelling: `standardSecret` below makes it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
// Types only, for the `switch` below: verification needs nothing from the SDK.
import type { WebhookEvent } from '@voice-calls/sdk';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export type StandardReceiverOptions = {
  /** The subscription secret; during your own rotation pass both, new first. */
  secret: string | string[];
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Largest body accepted (deliveries are at most 64 KiB plus the envelope). */
  maxBytes?: number;
};

/** `whsec_` + standard base64 of the same bytes: what Standard Webhooks libraries decode. */
export const standardSecret = (secret: string): string =>
  `whsec_${Buffer.from(secret.replace(/^whsec_/, ''), 'base64url').toString('base64')}`;

/** The request listener: usable with http.createServer, or mounted in any node:http-based framework. */
export function standardWebhookHandler(o: StandardReceiverOptions): http.RequestListener {
  const verifiers = (typeof o.secret === 'string' ? [o.secret] : o.secret).map(
    (s) => new Webhook(standardSecret(s)),
  );
  const seen = new Set<string>();
  const maxBytes = o.maxBytes ?? 256 * 1024;

  /** The event, if one of the secrets signed these exact bytes within the library's 5 minutes. */
  const verified = (body: string, headers: Record<string, string>): WebhookEvent => {
    let refusal: unknown;
    for (const verifier of verifiers) {
      try {
        return verifier.verify(body, headers) as WebhookEvent;
      } catch (error) {
        refusal = error;
      }
    }
    throw refusal;
  };

  return (req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, String(value ?? '')]),
      );
      let event: WebhookEvent;
      try {
        // The raw body, exactly as received: the signature covers the bytes, not a re-serialised object.
        event = verified(Buffer.concat(chunks).toString('utf8'), headers);
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? error.message : 'error';
        return void res.writeHead(400, { 'content-type': 'text/plain' }).end(`rejected: ${reason}\n`);
      }
      const id = headers['webhook-id'] ?? event.id;
      if (seen.has(id)) return void res.writeHead(200).end('duplicate\n');
      try {
        await o.onEvent(event);
        seen.add(id);
        res.writeHead(204).end();
      } catch {
        // A 5xx makes the service retry later.
        res.writeHead(500).end();
      }
    });
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the subscription secret (whsec_…).');
    process.exit(2);
  }
  const server = http.createServer(
    standardWebhookHandler({
      secret,
      onEvent: (e) =>
        console.log(
          `${e.event} ${e.id} for ${'call_id' in e.data ? `call ${e.data.call_id}` : `message ${e.data.message_id}`}`,
        ),
    }),
  );
  server.listen(Number(process.env.PORT ?? 3000), () => {
    console.log(`listening on port ${(server.address() as AddressInfo).port}`);
  });
}
