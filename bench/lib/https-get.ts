import https from 'node:https';

const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

/** One GET over a kept-alive connection (certificate not checked: the bench's own); status and body. */
export function httpsGet(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      { agent, headers: { authorization: `Bearer ${key}` }, timeout: 60_000 },
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
