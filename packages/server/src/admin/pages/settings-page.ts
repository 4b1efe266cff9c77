import { HTMLForm, type ActionCallback, type FormValues } from '@roost/forms';
import type { Config } from '../../core/config.js';
import { composeMail } from '../../core/mail-body.js';
import type { Mailer } from '../../core/mailer.js';
import { EVERYONE, NOONE } from '../../core/permissions.js';
import type { RuntimeSettingsService } from '../../core/runtime-settings.js';
import { mailRoute } from '../../mail/create-mailer.js';
import type { UserService } from '../../users/index.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { textParam } from '../page-kit/page-parts.js';
import {
  addressList,
  formData,
  groupList,
  policyState,
  schemaCheck,
  settingsFields,
  SWITCHES,
} from './settings-fields.js';
import { maskSmtpUrl, unmaskProviders, unmaskSmtpUrl } from './settings-secrets.js';
import { s3Buckets, s3Change, s3Fields, s3FormData } from './settings-s3.js';

/**
 * `/admin/settings`: the runtime settings (identity policy, the sign-in providers, the pages the
 * mails link to, mail sender, administrator address, SMTP server, the rate limit, the S3 buckets'
 * access keys: settings-s3.ts), which sign-up policies and
 * sign-in by mail are on, and a test mail.
 * Settings are stored in the database over the boot configuration (core/runtime-settings.ts)
 * and apply without a restart; "on" and "off" of a sign-up policy are its permission entry
 * (`sys:everyone` or `sys:noone`), changed through `setPermissions` like the API does.
 */

export interface SettingsPageDeps {
  users: UserService;
  settings: RuntimeSettingsService;
  mailer: Mailer;
  config: Config;
}

async function userPermissions(users: UserService, page: AdminPageRequest): Promise<Map<string, readonly string[]>> {
  const entries = await users.permissionEntries(page.admin);
  return new Map(entries.map((e) => [e.permission, e.groups]));
}

async function settingsPage(deps: SettingsPageDeps, page: AdminPageRequest) {
  const { users, settings, mailer } = deps;
  const policies = await userPermissions(users, page);
  const current = await settings.current();
  const buckets = s3Buckets(deps.config);
  const by = page.admin.user.name;
  let done: string | undefined;

  const save: ActionCallback = async function (this: HTMLForm) {
    const posted = this.getFormValues() ?? {};
    const [ok, data, errors] = await this.validate(posted);
    if (!ok) return [false, await this.render(data, [], errors)];
    const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
    const s3 = s3Change(buckets, current, posted);
    if (s3 && 'problems' in s3) {
      const messages = ['Give the secret of the new access key id.'];
      return [
        false,
        await this.render(
          data,
          [],
          s3.problems.map(([field]) => ({ field, messages })),
        ),
      ];
    }
    // The provider fields came later: a form posted without them (an older page) leaves them as they are.
    const providerChanges = {
      ...('providers' in posted ? { providers: unmaskProviders(text('providers'), current.providers) } : {}),
      ...('providerRedirects' in posted ? { providerRedirects: addressList(text('providerRedirects')) } : {}),
      ...(data.linkProvidersByEmail === 'yes' || data.linkProvidersByEmail === 'no'
        ? { linkProvidersByEmail: data.linkProvidersByEmail === 'yes' }
        : {}),
    };
    await settings.change(
      {
        identityPolicy: data.identityPolicy,
        activationUrl: text('activationUrl') || null,
        verifyEmailUrl: text('verifyEmailUrl') || null,
        resetPasswordUrl: text('resetPasswordUrl') || null,
        mailFrom: data.mailFrom,
        adminAddress: text('adminAddress') || null,
        smtpUrl: text('smtpUrl') ? unmaskSmtpUrl(text('smtpUrl'), current.smtpUrl) : null,
        secondFactorGroups: groupList(text('secondFactorGroups')),
        ...providerChanges,
        // Left empty, a limit keeps its value; a form without them (an older page) changes neither.
        ...(typeof data.rateLimitMax === 'number' ? { rateLimitMax: data.rateLimitMax } : {}),
        ...(typeof data.rateLimitWindowSeconds === 'number'
          ? { rateLimitWindowSeconds: data.rateLimitWindowSeconds }
          : {}),
        ...(s3 ? { s3Keys: s3.s3Keys } : {}),
      },
      by,
    );
    const changes = SWITCHES.flatMap((p) => {
      const wanted = data[p.id];
      if (wanted !== 'on' && wanted !== 'off') return [];
      if (wanted === policyState(policies.get(p.id) ?? [])) return [];
      return [{ permission: p.id, groups: [wanted === 'on' ? EVERYONE : NOONE], action: 'replace' as const }];
    });
    if (changes.length) await users.changePermissions(page.admin, { permissions: changes });
    done = 'Settings saved. They apply now.';
    return [true, ''];
  };

  const sendTest: ActionCallback = async function (this: HTMLForm) {
    const values: FormValues = this.getFormValues();
    const [, data] = await this.extract(values);
    const to = textParam(values?.testMailTo).trim() || current.adminAddress || '';
    const problem = to
      ? await schemaCheck('adminAddress')(to, { field: { id: 'testMailTo' }, form: this, values, t: this.t })
      : 'Enter an address: no administrator address is set.';
    if (problem) return [false, await this.render(data, [], [{ field: 'testMailTo', messages: [problem] }])];
    const route =
      mailRoute(current) === 'smtp' ? `through the SMTP server ${maskSmtpUrl(current.smtpUrl)}` : 'to the outbox';
    const text =
      `This is a test mail from Roost at ${deps.config.publicUrl}, sent by ${by}. Mail goes ${route}; ` +
      `the sender is ${current.mailFrom}.`;
    try {
      await mailer.send(composeMail('test', to, 'Roost test mail', [text]));
    } catch (err) {
      // The administrator needs the transport's reason (refused, no such host, login failed); the
      // url's password is not in it.
      const reason = err instanceof Error ? err.message.slice(0, 300) : 'unknown error';
      return [
        false,
        await this.render(data, [`The test mail could not be sent ${route}: ${reason}`], undefined, false, false),
      ];
    }
    done = `A test mail to ${to} went ${route}.`;
    return [true, ''];
  };

  const reset: ActionCallback = async () => {
    await settings.reset(by);
    done = 'Every setting follows the boot configuration again (sign-up policies are unchanged).';
    return [true, ''];
  };

  const form = new HTMLForm({
    ...formBase('settings', page.hidden, '/admin/settings'),
    request: page.form,
    fields: [...(await settingsFields(deps, policies, current)), ...s3Fields(buckets, current)],
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'save', method: save, name: 'Save', cssClass: 'btn btn-primary' },
      { id: 'test', method: sendTest, name: 'Send test mail', cssClass: 'btn secondary' },
      { id: 'reset', method: reset, name: 'Use the boot configuration', cssClass: 'btn secondary' },
    ],
  });
  const { result, html } = await form.process({
    defaultData: { ...formData(current, policies), ...s3FormData(buckets, current) },
  });
  if (result && done) return { redirect: '/admin/settings', messages: [done] };
  const body =
    '<p class="muted">Values set here are stored in the database ' +
    'and win over the configuration file and environment; ' +
    'each applies at once here and within a second in every other Roost process on the same database.</p>' +
    `<div class="card">${html}</div>`;
  return { title: 'Settings', body, head: await form.htmlHead(), status: result === false ? 422 : 200 };
}

export function registerSettingsPage(pages: AdminPages, deps: SettingsPageDeps): void {
  pages.page('/admin/settings', (page) => settingsPage(deps, page));
}
