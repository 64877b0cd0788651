import { mock } from 'node:test';
import { Agent, request } from 'undici';
import type { TestApp } from './test-app.ts';

export const TEST_PASSWORD = 'correct horse battery staple';

export type PageResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
};

/** A browser-like client for the dashboard without a browser: a cookie jar, forms, no redirects followed. */
export type DashboardClient = {
  cookies: Map<string, string>;
  get(path: string, headers?: Record<string, string>): Promise<PageResponse>;
  post(
    path: string,
    form: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<PageResponse>;
  /** The CSRF token of the last page fetched with a form. */
  csrf(): string;
  close(): Promise<void>;
};

export function dashboardClient(t: Pick<TestApp, 'url' | 'cert'>): DashboardClient {
  const agent = new Agent({ connect: { ca: t.cert, servername: 'localhost' } });
  const cookies = new Map<string, string>();
  let lastCsrf = '';

  function remember(res: PageResponse) {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const m = /name="_csrf" value="([^"]+)"/.exec(res.text);
    if (m?.[1]) lastCsrf = m[1];
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(t.url + path, {
      method,
      body,
      dispatcher: agent,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
    });
    const out = { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    remember(out);
    return out;
  }

  return {
    cookies,
    get: (path, headers = {}) => send('GET', path, undefined, headers),
    post(path, form, headers = {}) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form))
        for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      return send('POST', path, params.toString(), headers);
    },
    csrf: () => lastCsrf,
    close: () => agent.close(),
  };
}

/** A customer with a dashboard user and a signed-in client. */
export async function signedIn(
  t: TestApp,
  customerId: string,
  email = `user-${customerId.slice(0, 8)}@example.com`,
): Promise<{ client: DashboardClient; email: string }> {
  await t.services.dashboard.users.createUser({ customerId, email, password: TEST_PASSWORD });
  const client = dashboardClient(t);
  await client.get('/dashboard/login');
  const res = await client.post('/dashboard/login', { _csrf: client.csrf(), email, password: TEST_PASSWORD });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 200)}`);
  return { client, email };
}

/**
 * Sign-ins fired all at once from one client (one address): their responses, and how many passwords were checked.
 * `beforeBurst` runs once the form has been fetched, right before the sign-ins go out.
 */
export async function signInBurst(
  t: TestApp,
  emails: string[],
  password: string,
  beforeBurst: () => void = () => {},
): Promise<{ responses: PageResponse[]; statuses: number[]; checked: number }> {
  const verify = mock.method(t.services.dashboard.users, 'verifyCredentials');
  const client = dashboardClient(t);
  try {
    await client.get('/dashboard/login');
    const csrf = client.csrf();
    beforeBurst();
    const responses = await Promise.all(
      emails.map((email) => client.post('/dashboard/login', { _csrf: csrf, email, password })),
    );
    return { responses, statuses: responses.map((r) => r.status), checked: verify.mock.callCount() };
  } finally {
    verify.mock.restore();
    await client.close();
  }
}

/** The one-time secret shown on a page, if any. */
export const shownSecret = (text: string): string | null =>
  /id="secret-value"[^>]*>([^<]+)</.exec(text)?.[1] ?? null;
