import https from 'node:https';

const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

/** One GET over a kept-alive connection (certificate not checked: the bench's own); status and body. */
export function httpsGet(
  url: string,
  key: string,
  over: https.Agent = agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      { agent: over, headers: { authorization: `Bearer ${key}` }, timeout: 60_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** Retries a GET until it answers 200 (bounded): the time of the first served request. */
export async function firstOk(url: string, key: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const r = await httpsGet(url, key);
      if (r.status === 200) return performance.now();
      if (performance.now() > deadline) throw new Error(`GET ${url}: ${r.status} ${r.body.slice(0, 200)}`);
    } catch (error) {
      if (performance.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * GET /auth/whoami once with every key, 50 at a time: the service then holds each key in memory, as the floors hold
 * theirs from their start. Without it a load's first use of each of its 10,000 keys reads the key from the database,
 * and a 3-second warm-up of GET /calls reaches fewer than half of them (docs/performance.md).
 */
export async function warmKeys(baseUrl: string, keys: readonly string[]): Promise<void> {
  const pool = new https.Agent({ keepAlive: true, maxSockets: 50, rejectUnauthorized: false });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < keys.length; i = next++) {
      const r = await httpsGet(`${baseUrl}/api/v1/auth/whoami`, keys[i] ?? '', pool);
      if (r.status !== 200)
        throw new Error(`warming keys: whoami answered ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: 50 }, worker));
  } finally {
    pool.destroy();
  }
}
