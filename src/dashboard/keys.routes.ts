import type { FastifyInstance } from 'fastify';
import { AppError, notFound } from '../errors/index.ts';
import { AUTOMATION_PRESET } from '../keys/index.ts';
import { type DashboardContext, flash, seeOther, sendHtml, sessionOf, userOf } from './context.ts';
import { asForm, type FieldIssue, field, fields, readForm } from './forms.ts';
import type { Session } from './sessions.service.ts';
import { when } from './views/format.ts';
import {
  keyDetailPage,
  keysListPage,
  type NewKeyValues,
  newKeyPage,
  revokeConfirmPage,
} from './views/keys.view.ts';

const FIELD_IDS: Record<string, string> = {
  name: 'name',
  scopes: 'scopes',
  expires_at: 'expires_at',
  daily_spend_cap_usd: 'daily_spend_cap_usd',
  allowed_countries: 'allowed_countries',
};

/** A problem pointed at the form field it concerns, when the form has it. */
const onField = (i: FieldIssue): { field?: string; message: string } => {
  const id = FIELD_IDS[i.field];
  return id ? { field: id, message: i.message } : { message: i.message };
};

/** Validation problems from a service, pointed at the form field they concern. */
export function formIssues(error: unknown): { field?: string; message: string }[] | null {
  if (!(error instanceof AppError) || error.code !== 'input.invalid') return null;
  return (error.issues ?? []).map((i) =>
    onField({ field: i.path.filter((p) => p !== 'body')[0] ?? '', message: i.message }),
  );
}

export function registerKeysRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;

  const idOf = (params: unknown) => (params as { id: string }).id;
  /** A key of the customer in the session's view (live or test): the other view's keys are not shown here. */
  const keyInView = async (s: Session, id: string) => {
    const key = await services.keys.getKey(s.accountId, id);
    if (key.mode !== s.mode) throw notFound('API key');
    return key;
  };

  app.get('/keys', async (request, reply) => {
    const s = sessionOf(request);
    const [keys, graceEnds] = await Promise.all([
      services.keys.listKeys(s.accountId, s.mode),
      services.keys.graceEnds(s.accountId),
    ]);
    // Newest first; revoked keys last.
    keys.sort(
      (a, b) =>
        Number(a.status === 'revoked') - Number(b.status === 'revoked') ||
        b.created_at.localeCompare(a.created_at),
    );
    return sendHtml(reply, keysListPage({ user: userOf(s), flash: s.flash, keys, graceEnds }));
  });

  app.get('/keys/new', async (request, reply) => {
    const s = sessionOf(request);
    const { limits, ...defaults } = await services.keys.newKeyDefaults(s.accountId);
    const values: NewKeyValues = {
      name: '',
      preset: 'automation',
      scopes: [...AUTOMATION_PRESET],
      expiresAt: '',
      spendCap: defaults.capUsd,
      countries: defaults.countries.join(', '),
    };
    return sendHtml(reply, newKeyPage({ user: userOf(s), values, limits, issues: [] }));
  });

  app.post('/keys', async (request, reply) => {
    const s = sessionOf(request);
    const { form, issues: unstorable } = readForm(request.body);
    const values: NewKeyValues = {
      name: field(form, 'name'),
      preset: field(form, 'preset') === 'custom' ? 'custom' : 'automation',
      scopes: fields(form, 'scopes'),
      expiresAt: field(form, 'expires_at'),
      spendCap: field(form, 'daily_spend_cap_usd').trim(),
      countries: field(form, 'allowed_countries'),
    };
    const scopes = values.preset === 'automation' ? [...AUTOMATION_PRESET] : values.scopes;
    const issues = unstorable.map(onField);
    let expiresAt: Date | null = null;
    if (values.expiresAt) {
      expiresAt = /^\d{4}-\d{2}-\d{2}$/.test(values.expiresAt)
        ? new Date(`${values.expiresAt}T23:59:59.000Z`)
        : null;
      if (!expiresAt || Number.isNaN(expiresAt.getTime()))
        issues.push({ field: 'expires_at', message: 'Give a date.' });
    }
    // The form again, with the customer's limits beside the fields they bound.
    const refuse = async (problems: { field?: string; message: string }[]) => {
      const { limits } = await services.keys.newKeyDefaults(s.accountId);
      return sendHtml(reply, newKeyPage({ user: userOf(s), values, limits, issues: problems }), 422);
    };
    if (issues.length > 0) return refuse(issues);
    try {
      const { key, secret } = await services.keys.createKey({
        customerId: s.accountId,
        name: values.name,
        scopes,
        expiresAt,
        dailySpendCapUsd: values.spendCap,
        allowedCountries: values.countries.split(/[\s,]+/).filter(Boolean),
        mode: s.mode,
      });
      request.log.info(
        { event: 'dashboard_key_created', key_id: key.id, customer_id: s.accountId },
        'key created',
      );
      await flash(ctx, request, {
        kind: 'notice',
        message: `Key “${key.name}” created.`,
        secret: { label: 'Your new API key', value: secret },
      });
      return seeOther(reply, `/dashboard/keys/${key.id}`);
    } catch (error) {
      const problems = formIssues(error);
      if (!problems) throw error;
      return refuse(problems);
    }
  });

  app.get('/keys/:id', async (request, reply) => {
    const s = sessionOf(request);
    const key = await keyInView(s, idOf(request.params));
    const graceEnd = (await services.keys.graceEnds(s.accountId)).get(key.id) ?? null;
    return sendHtml(reply, keyDetailPage({ user: userOf(s), flash: s.flash, key, graceEnd, issues: [] }));
  });

  app.post('/keys/:id/scopes', async (request, reply) => {
    const s = sessionOf(request);
    const key = await keyInView(s, idOf(request.params));
    try {
      const updated = await services.keys.setScopes(
        s.accountId,
        key.id,
        fields(asForm(request.body), 'scopes'),
      );
      request.log.info(
        { event: 'dashboard_key_scopes', key_id: key.id, scopes: updated.scopes },
        'key scopes changed',
      );
      await flash(ctx, request, {
        kind: 'notice',
        message: `Scopes saved: ${updated.scopes.join(', ') || 'none'}.`,
      });
      return seeOther(reply, `/dashboard/keys/${key.id}`);
    } catch (error) {
      const problems = formIssues(error);
      if (!problems) throw error;
      return sendHtml(
        reply,
        keyDetailPage({ user: userOf(s), flash: null, key, graceEnd: null, issues: problems }),
        422,
      );
    }
  });

  app.post('/keys/:id/rotate', async (request, reply) => {
    const s = sessionOf(request);
    const key = await keyInView(s, idOf(request.params));
    const rotated = await services.keys.rotateKey(s.accountId, key.id);
    request.log.info({ event: 'dashboard_key_rotated', key_id: key.id }, 'key rotated');
    await flash(ctx, request, {
      kind: 'notice',
      message: `Key “${key.name}” rotated.`,
      secret: {
        label: 'The new value of this key',
        value: rotated.secret,
        note: `The previous value keeps working until ${when(rotated.previousValidUntil)}; update your integrations before then.`,
      },
    });
    return seeOther(reply, `/dashboard/keys/${key.id}`);
  });

  app.get('/keys/:id/revoke', async (request, reply) => {
    const s = sessionOf(request);
    const key = await keyInView(s, idOf(request.params));
    if (key.status === 'revoked') return seeOther(reply, `/dashboard/keys/${key.id}`);
    return sendHtml(reply, revokeConfirmPage({ user: userOf(s), key }));
  });

  app.post('/keys/:id/revoke', async (request, reply) => {
    const s = sessionOf(request);
    const key = await keyInView(s, idOf(request.params));
    await services.keys.revokeKey(s.accountId, key.id);
    request.log.info({ event: 'dashboard_key_revoked', key_id: key.id }, 'key revoked');
    await flash(ctx, request, {
      kind: 'notice',
      message: `Key “${key.name}” revoked. Requests with it now fail.`,
    });
    return seeOther(reply, `/dashboard/keys/${key.id}`);
  });
}
