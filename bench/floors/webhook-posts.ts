import { randomUUID } from 'node:crypto';
import type { WebhookSender } from '../../src/delivery/http-sender.ts';
import { signPayload, unixSeconds } from '../../src/delivery/signature.ts';

export type PostsFloor = { posts: number; failed: number; seconds: number; perSecond: number };

/**
 * Floor of scenario 4: signed POSTs of a real envelope with the worker's own sender (same undici agent
 * settings) and the worker's concurrency, round-robin over the same receivers, with no database: the
 * most a delivery worker could do on this machine with this HTTP client.
 */
export async function signedPosts(o: {
  sender: WebhookSender;
  urls: string[];
  secret: string;
  body: string;
  concurrency: number;
  seconds: number;
}): Promise<PostsFloor> {
  let posts = 0;
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + o.seconds * 1000;
  const lane = async () => {
    while (performance.now() < deadline) {
      const url = o.urls[next++ % o.urls.length] ?? '';
      const timestamp = unixSeconds(new Date());
      const result = await o.sender.send(
        url,
        {
          'content-type': 'application/json',
          'user-agent': 'VoiceCallsAPI-Webhooks/1.0',
          'x-svc-event': 'call.completed',
          'x-svc-event-id': randomUUID(),
          'x-svc-delivery': randomUUID(),
          'x-svc-timestamp': String(timestamp),
          'x-svc-signature-256': signPayload(o.secret, timestamp, o.body),
        },
        o.body,
      );
      if (result.ok) posts += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { posts, failed, seconds, perSecond: posts / seconds };
}
