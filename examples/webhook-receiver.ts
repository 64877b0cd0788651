/**
 * A webhook receiver on plain node:http: verifies every delivery with the SDK before trusting it,
 * answers 2xx quickly, and de-duplicates on the event id (delivery is at-least-once).
 *
 *   WEBHOOK_SECRET=whsec_… PORT=3000 npm run example:receiver
 *
 * Point a subscription at it through a public HTTPS address (a tunnel or your reverse proxy), or at
 * http://127.0.0.1:3000/ when the server runs with WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE_TARGETS=true
 * (local development only).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@voice-calls/sdk';

export type ReceiverOptions = {
  /** The subscription secret; during your own rotation pass both, new first. */
  secret: string | string[];
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Largest body accepted (deliveries are at most 64 KiB plus the envelope). */
  maxBytes?: number;
};

/** The request listener: usable with http.createServer, or mounted in any node:http-based framework. */
export function webhookHandler(o: ReceiverOptions): http.RequestListener {
  const seen = new Set<string>();
  const maxBytes = o.maxBytes ?? 256 * 1024;
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
      let event: WebhookEvent;
      try {
        // The raw bytes, exactly as received: the signature covers them, not a re-serialised object.
        event = verifyWebhook(o.secret, req.headers, Buffer.concat(chunks), { toleranceSeconds: 300 });
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? error.reason : 'error';
        return void res.writeHead(400, { 'content-type': 'text/plain' }).end(`rejected: ${reason}\n`);
      }
      if (seen.has(event.id)) return void res.writeHead(200).end('duplicate\n');
      try {
        await o.onEvent(event);
        seen.add(event.id);
        res.writeHead(204).end();
      } catch {
        // A 5xx makes the service retry later.
        res.writeHead(500).end();
      }
    });
  };
}

export const createWebhookServer = (o: ReceiverOptions): http.Server => http.createServer(webhookHandler(o));

function describe(event: WebhookEvent): string {
  switch (event.event) {
    case 'call.completed':
      return `call ${event.data.call_id} ${event.data.status} after ${event.data.duration_seconds}s, $${event.data.cost}`;
    case 'call.insight.received':
      return `insights for ${event.data.call_id}: ${event.data.insights.map((i) => i.name).join(', ')}`;
    case 'call.transcript.ready':
      return `transcript of ${event.data.call_id}: ${event.data.transcript.segments.length} segments`;
    case 'sms.sent':
      return `text ${event.data.message_id} to ${event.data.to}: ${event.data.status}${event.data.error_code ? ` (${event.data.error_code})` : ''}`;
    case 'sms.received':
      return `text ${event.data.message_id} from ${event.data.from}: ${event.data.body}`;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the subscription secret (whsec_…).');
    process.exit(2);
  }
  const server = createWebhookServer({ secret, onEvent: (e) => console.log(`${e.event}: ${describe(e)}`) });
  server.listen(Number(process.env.PORT ?? 3000), () => {
    console.log(`listening on port ${(server.address() as AddressInfo).port}`);
  });
}
