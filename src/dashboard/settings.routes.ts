import type { FastifyInstance } from 'fastify';
import type { RetentionChoice } from '../customers/index.ts';
import { type DashboardContext, flash, seeOther, sendHtml, sessionOf, userOf } from './context.ts';
import { field, readForm } from './forms.ts';
import { formIssues } from './keys.routes.ts';
import { type SettingsValues, settingsPage, settingsValues } from './views/settings.view.ts';

/** The form's choice as the customers service takes it; null when the days typed are not a number. */
function choiceOf(v: SettingsValues): RetentionChoice | null {
  if (v.retention === 'default' || v.retention === 'forever') return v.retention;
  return /^\d{1,6}$/.test(v.days.trim()) ? Number(v.days.trim()) : null;
}

/** Settings: the account's retention of calls and transcript redaction (customers/, as the operator's CLI). */
export function registerSettingsRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;

  app.get('/settings', async (request, reply) => {
    const s = sessionOf(request);
    const settings = await services.customers.callDataSettings(s.accountId);
    return sendHtml(
      reply,
      settingsPage({
        user: userOf(s),
        flash: s.flash,
        settings,
        values: settingsValues(settings),
        issues: [],
      }),
    );
  });

  app.post('/settings', async (request, reply) => {
    const s = sessionOf(request);
    const { form, issues: unstorable } = readForm(request.body);
    const retention = field(form, 'retention');
    const values: SettingsValues = {
      retention: retention === 'days' || retention === 'forever' ? retention : 'default',
      days: field(form, 'retention_days'),
      redact: field(form, 'redact_transcripts') === 'on',
    };
    const refuse = async (issues: { field?: string; message: string }[]) => {
      const settings = await services.customers.callDataSettings(s.accountId);
      return sendHtml(reply, settingsPage({ user: userOf(s), settings, values, issues }), 422);
    };
    if (unstorable.length > 0) return refuse(unstorable.map((i) => ({ message: i.message })));
    const choice = choiceOf(values);
    if (choice === null)
      return refuse([{ field: 'retention_days', message: 'Give a whole number of days.' }]);
    try {
      await services.customers.setCallRetention(s.accountId, choice);
    } catch (error) {
      const issues = formIssues(error);
      if (!issues) throw error;
      return refuse(issues.map((i) => ({ field: 'retention_days', message: i.message })));
    }
    await services.customers.setTranscriptRedaction(s.accountId, values.redact);
    request.log.info(
      {
        event: 'dashboard_settings_changed',
        customer_id: s.accountId,
        retention: choice,
        redact: values.redact,
      },
      'call data settings changed',
    );
    await flash(ctx, request, { kind: 'notice', message: 'Settings saved.' });
    return seeOther(reply, '/dashboard/settings');
  });
}
