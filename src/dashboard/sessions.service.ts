import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import { ensureTestTwin } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import { newUuid } from '../ids.ts';
import * as repo from './sessions.repository.ts';

export type SessionSettings = {
  /** A session unused this long ends (default 12 h). */
  idleSeconds: number;
  /** A session ends this long after sign-in, used or not (default 7 days). */
  absoluteSeconds: number;
};

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  idleSeconds: 12 * 3600,
  absoluteSeconds: 7 * 86400,
};

/** last_seen_at is written at most this often, so browsing does not write on every page. */
const TOUCH_EVERY_MS = 60_000;

/** What a page may show once: a notice, and possibly a new secret (key or webhook signing secret). */
export type Flash = {
  kind: 'notice' | 'error';
  message: string;
  secret?: { label: string; value: string; note?: string };
};

export type Session = {
  id: string;
  userId: string;
  /**
   * Whose data the pages show: the customer, or while viewing test data its test twin. Everything scoped by
   * customer reads this, so the two views never mix.
   */
  customerId: string;
  /** The user's customer, whichever the view: its keys, its assistants, its name. */
  accountId: string;
  /** `test` while the session views test data. */
  mode: 'live' | 'test';
  /** TEST_MODE: the switch to test data is offered (set by the dashboard for each request). */
  testModeOffered?: boolean;
  csrfToken: string;
  expiresAt: Date;
  email: string;
  customerName: string;
  /** The one-time flash, already cleared in storage when this session was read for a page. */
  flash: Flash | null;
};

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function createSessionsService(deps: { db: Database; clock: Clock; secretBox: SecretBox }) {
  const { db, clock, secretBox } = deps;

  function readFlash(sealed: string | null): Flash | null {
    if (!sealed) return null;
    try {
      return JSON.parse(secretBox.open(sealed)) as Flash;
    } catch {
      return null;
    }
  }

  return {
    /** A new session for a signed-in user; returns the cookie token (shown to nobody else, stored hashed). */
    async create(
      user: { id: string; customer_id: string; email: string },
      settings: SessionSettings,
    ): Promise<{ token: string; session: Omit<Session, 'customerName'> }> {
      const now = clock.now();
      await repo.purgeExpired(db, now, new Date(now.getTime() - settings.idleSeconds * 1000));
      const token = randomBytes(32).toString('base64url');
      const row = {
        id: newUuid(),
        token_hash: hashToken(token),
        user_id: user.id,
        customer_id: user.customer_id,
        csrf_token: randomBytes(32).toString('base64url'),
        flash_encrypted: null,
        test_customer_id: null,
        created_at: now,
        expires_at: new Date(now.getTime() + settings.absoluteSeconds * 1000),
        last_seen_at: now,
      };
      await repo.insertSession(db, row);
      return {
        token,
        session: {
          id: row.id,
          userId: row.user_id,
          customerId: row.customer_id,
          accountId: row.customer_id,
          mode: 'live',
          csrfToken: row.csrf_token,
          expiresAt: row.expires_at,
          email: user.email,
          flash: null,
        },
      };
    },

    /**
     * The live session for a cookie token, or null (unknown, idle too long, or past its absolute end;
     * an ended session is deleted). With `takeFlash` the one-time flash is read and cleared.
     */
    async resolve(token: string, settings: SessionSettings, takeFlash: boolean): Promise<Session | null> {
      if (!token || token.length > 128) return null;
      const row = await repo.findByTokenHash(db, hashToken(token));
      if (!row) return null;
      const now = clock.now();
      const idleEnd = row.last_seen_at.getTime() + settings.idleSeconds * 1000;
      if (row.expires_at <= now || idleEnd <= now.getTime()) {
        await repo.deleteSession(db, row.id);
        return null;
      }
      if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_EVERY_MS)
        await repo.touchSession(db, row.id, now);
      let flash: Flash | null = null;
      if (takeFlash && row.flash_encrypted && (await repo.clearFlash(db, row.id, row.flash_encrypted))) {
        flash = readFlash(row.flash_encrypted);
      }
      return {
        id: row.id,
        userId: row.user_id,
        customerId: row.test_customer_id ?? row.customer_id,
        accountId: row.customer_id,
        mode: row.test_customer_id ? 'test' : 'live',
        csrfToken: row.csrf_token,
        expiresAt: row.expires_at,
        email: row.email,
        customerName: row.customer_name,
        flash,
      };
    },

    /** Switches the session to the customer's test data (its test twin, made if need be) or back to live data. */
    async view(session: Pick<Session, 'id' | 'accountId'>, mode: 'live' | 'test'): Promise<void> {
      const twin =
        mode === 'test' ? await ensureTestTwin(db, session.accountId, newUuid(), clock.now()) : null;
      await repo.setTestView(db, session.id, twin);
    },

    async setFlash(sessionId: string, flash: Flash): Promise<void> {
      await repo.setFlash(db, sessionId, secretBox.seal(JSON.stringify(flash)));
    },

    async destroy(sessionId: string): Promise<void> {
      await repo.deleteSession(db, sessionId);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
