import { HTMLForm, type ActionCallback, type FieldConf, type FieldValidator, type FormValues } from '@roost/forms';
import type { Config } from '../../core/config.js';
import { formatTime } from '../../core/clock.js';
import { composeMail } from '../../core/mail-body.js';
import type { Mailer } from '../../core/mailer.js';
import { EVERYONE, NOONE } from '../../core/permissions.js';
import {
  RUNTIME_SETTINGS,
  type RuntimeSettingKey,
  type RuntimeSettings,
  type RuntimeSettingsService,
  type StoredSetting,
} from '../../core/runtime-settings.js';
import { mailRoute } from '../../mail/create-mailer.js';
import type { UserService } from '../../users/index.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { textParam } from '../page-kit/page-parts.js';

/**
 * `/admin/settings`: the runtime settings (identity policy, the sign-in providers, the pages the
 * mails link to, mail sender, administrator address, SMTP server), which sign-up policies and
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

/**
 * Operations an administrator turns on and off here: the five sign-up policies and sign-in by
 * mail. "On" grants the operation's permission to everyone, "off" to nobody. Sign-in by mail
 * came later: a form posted without its choice (an older page) leaves it as it is.
 */
const SWITCHES = [
  { id: 'signupDirect', name: 'Direct sign-up', help: 'Active at once, no mail.' },
  {
    id: 'signupOptin',
    name: 'Sign-up with mail confirmation',
    help: 'Active once the mailed activation link is used.',
  },
  { id: 'signupReview', name: 'Sign-up with review', help: 'Waits for an administrator on the Sign-ups page.' },
  { id: 'signupSendpw', name: 'Sign-up with mailed password', help: 'Active; a generated password is mailed.' },
  { id: 'signupUid', name: 'Sign-up with generated name', help: 'Active, under a random 30-character name.' },
  {
    id: 'signinMail',
    name: 'Sign-in with a code by mail',
    help: 'A one-time code and link by mail instead of the password (the second factor still applies).',
    optional: true,
  },
] as const;

/** A sign-up policy's state from its permission entry: on (everyone), off (nobody), or granted to some groups. */
function policyState(groups: readonly string[]): 'on' | 'off' | 'custom' {
  if (groups.includes(EVERYONE)) return 'on';
  if (groups.every((g) => g === NOONE)) return 'off';
  return 'custom';
}

/** The SMTP url with its password shown as `****` (the page never puts a password into html). */
export function maskSmtpUrl(url: string | null): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return '';
  }
}

/** A submitted SMTP url with `****` as password keeps the stored password when user, host and port are the same. */
function unmaskSmtpUrl(submitted: string, stored: string | null): string {
  if (!stored) return submitted;
  try {
    const s = new URL(submitted);
    const c = new URL(stored);
    if (s.password !== '****' || s.protocol !== c.protocol || s.username !== c.username || s.host !== c.host)
      return submitted;
    s.password = c.password;
    return s.toString();
  } catch {
    return submitted;
  }
}

/** The providers as the page shows them: JSON, each client secret as `****` (never in html). */
function maskedProviders(providers: RuntimeSettings['providers']): string {
  if (providers.length === 0) return '';
  const shown = providers.map((p) => (p.clientSecret ? { ...p, clientSecret: '****' } : p));
  return JSON.stringify(shown, null, 2);
}

/** Submitted providers with `****` as a secret keep the stored secret of the provider with that id. */
function unmaskProviders(text: string, stored: RuntimeSettings['providers']): unknown {
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!Array.isArray(parsed)) return parsed;
  return parsed.map((p: unknown) => {
    if (typeof p !== 'object' || p === null || (p as { clientSecret?: unknown }).clientSecret !== '****') return p;
    const same = stored.find((s) => s.id === (p as { id?: unknown }).id);
    return { ...p, clientSecret: same?.clientSecret };
  });
}

/** Addresses typed one per line (or separated by white space). */
const addressList = (text: string): string[] => text.split(/\s+/).filter((a) => a !== '');

/** Group names typed separated by commas (white space around them does not count). */
const groupList = (text: string): string[] =>
  text
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');

const REASONS: Partial<Record<RuntimeSettingKey, string>> = {
  activationUrl: 'Enter an http:// or https:// url, or leave it empty.',
  verifyEmailUrl: 'Enter an http:// or https:// url, or leave it empty.',
  resetPasswordUrl: 'Enter an http:// or https:// url, or leave it empty.',
  mailFrom: 'Enter a sender such as Roost <roost@example.com> (3 to 300 characters).',
  adminAddress: 'Enter an email address, or leave it empty.',
  smtpUrl: 'Enter an smtp:// or smtps:// url (smtp://user:password@host:587), or leave it empty.',
};

/** The field validator of a setting: the same schema the settings store validates with. */
function schemaCheck(key: RuntimeSettingKey): FieldValidator {
  return (value) => {
    if (value === '' || value === null || value === undefined) return undefined;
    return RUNTIME_SETTINGS[key].schema.safeParse(value).success ? undefined : (REASONS[key] ?? 'Invalid value.');
  };
}

function origin(
  key: RuntimeSettingKey,
  boot: RuntimeSettings,
  overrides: Partial<Record<RuntimeSettingKey, StoredSetting>>,
  shown: (v: unknown) => string,
): string {
  const row = overrides[key];
  const bootText = `Boot configuration: ${shown(boot[key]) || '(none)'}.`;
  if (!row) return `${bootText} Not changed here.`;
  const when = row.changed ? ` ${formatTime(row.changed)} UTC` : '';
  const by = row.changedBy ? ` by ${row.changedBy}` : '';
  return `${bootText} Set here${when}${by}.`;
}

async function settingsFields(
  deps: SettingsPageDeps,
  policies: Map<string, readonly string[]>,
  current: RuntimeSettings,
): Promise<FieldConf[]> {
  const { settings, config } = deps;
  const overrides = await settings.overrides();
  const boot = settings.boot;
  const said = (key: RuntimeSettingKey, shown: (v: unknown) => string = (v) => (v === null ? '' : String(v))) =>
    origin(key, boot, overrides, shown);
  const page = (path: string) => `${config.publicUrl}/users/${path}`;
  const pageUrl = (
    key: 'activationUrl' | 'verifyEmailUrl' | 'resetPasswordUrl',
    name: string,
    path: string,
  ): FieldConf => ({
    id: key,
    name,
    datatype: 'string',
    size: 2000,
    validator: schemaCheck(key),
    description: `Empty: Roost's own page, ${page(path)}. ${said(key)}`,
  });
  const policyFields: FieldConf[] = SWITCHES.map((p) => {
    const groups = policies.get(p.id) ?? [];
    const state = policyState(groups);
    return {
      id: p.id,
      name: p.name,
      datatype: 'radio',
      required: !('optional' in p),
      description: `${p.help} Permission ${p.id}: ${groups.join(', ') || '(nobody)'}.`,
      listItems: [
        { id: 'on', name: 'On' },
        { id: 'off', name: 'Off' },
        ...(state === 'custom' ? [{ id: 'custom', name: `Only ${groups.join(', ')} (kept)` }] : []),
      ],
    };
  });
  return [
    {
      id: 'identityPolicy',
      name: 'Users sign in with',
      datatype: 'radio',
      required: true,
      listItems: [
        { id: 'name', name: 'Name' },
        { id: 'email', name: 'Email' },
        { id: 'either', name: 'Name or email (with an @: email)' },
      ],
      description: `Also for tokens and password reset. ${said('identityPolicy')}`,
    },
    ...policyFields,
    {
      id: 'secondFactorGroups',
      name: 'Groups that sign in with a second factor',
      datatype: 'string',
      size: 2000,
      validator: (value) =>
        RUNTIME_SETTINGS.secondFactorGroups.schema.safeParse(groupList(textParam(value))).success
          ? undefined
          : 'Enter group names separated by commas (at most 50, each at most 100 characters).',
      description:
        'Separated by commas, for example admins. Members without an authenticator set one up at their next ' +
        `sign-in. ${said('secondFactorGroups', (v) => (v as string[]).join(', '))}`,
    },
    {
      id: 'providers',
      name: 'Sign-in providers',
      datatype: 'text',
      size: 20_000,
      settings: { rows: 8, autocomplete: 'off' },
      validator: (value) =>
        RUNTIME_SETTINGS.providers.schema.safeParse(unmaskProviders(textParam(value), current.providers)).success
          ? undefined
          : 'Enter a JSON list of providers, each with id, kind, clientId and clientSecret (see docs/users.md).',
      description:
        'A JSON list, for example [{"id": "github", "kind": "github", "clientId": "…", "clientSecret": "…"}]; ' +
        `kinds: oidc (with issuer), github, google, microsoft, gitlab. Register ${config.publicUrl}/users/providers/` +
        'ID/callback with the provider. Client secrets show as ****; leave them so to keep them. ' +
        said('providers', (v) => maskedProviders(v as RuntimeSettings['providers'])),
    },
    {
      id: 'providerRedirects',
      name: 'Apps a provider sign-in may return to',
      datatype: 'text',
      size: 20_000,
      settings: { rows: 3 },
      validator: (value) =>
        RUNTIME_SETTINGS.providerRedirects.schema.safeParse(addressList(textParam(value))).success
          ? undefined
          : 'Enter http:// or https:// addresses, one per line (at most 50).',
      description:
        "One address per line; one ending in / allows every address under it. Roost's own pages need none. " +
        said('providerRedirects', (v) => (v as string[]).join(' ')),
    },
    {
      id: 'linkProvidersByEmail',
      name: 'A provider sign-in with a verified email joins the account of that email',
      datatype: 'radio',
      listItems: [
        { id: 'yes', name: 'Yes' },
        { id: 'no', name: 'No: the owner links the provider on the account page' },
      ],
      description: said('linkProvidersByEmail', (v) => (v ? 'yes' : 'no')),
    },
    pageUrl('activationUrl', 'Activation page', 'activate'),
    pageUrl('verifyEmailUrl', 'Email verification page', 'verify-email'),
    pageUrl('resetPasswordUrl', 'Password reset page', 'reset-password'),
    {
      id: 'mailFrom',
      name: 'Mail sender',
      datatype: 'string',
      size: 300,
      required: true,
      validator: schemaCheck('mailFrom'),
      description: said('mailFrom'),
    },
    {
      id: 'adminAddress',
      name: 'Administrator address',
      datatype: 'string',
      size: 254,
      validator: schemaCheck('adminAddress'),
      description: `Gets message mails and sign-up notices. ${said('adminAddress')}`,
    },
    {
      id: 'smtpUrl',
      name: 'SMTP server',
      datatype: 'string',
      size: 2000,
      validator: schemaCheck('smtpUrl'),
      settings: { autocomplete: 'off' },
      description:
        'Empty: mails go to the outbox (Mail outbox page). A password shows as ****; leave it so to keep ' +
        `it. ${said('smtpUrl', (v) => maskSmtpUrl(v as string | null))}`,
    },
    {
      id: 'testMailTo',
      name: 'Send a test mail to',
      datatype: 'string',
      size: 254,
      validator: schemaCheck('adminAddress'),
      description: 'With the saved settings. Empty: the administrator address.',
    },
  ];
}

function formData(current: RuntimeSettings, policies: Map<string, readonly string[]>): Record<string, unknown> {
  const data: Record<string, unknown> = {
    identityPolicy: current.identityPolicy,
    activationUrl: current.activationUrl ?? '',
    verifyEmailUrl: current.verifyEmailUrl ?? '',
    resetPasswordUrl: current.resetPasswordUrl ?? '',
    mailFrom: current.mailFrom,
    adminAddress: current.adminAddress ?? '',
    smtpUrl: maskSmtpUrl(current.smtpUrl),
    secondFactorGroups: current.secondFactorGroups.join(', '),
    providers: maskedProviders(current.providers),
    providerRedirects: current.providerRedirects.join('\n'),
    linkProvidersByEmail: current.linkProvidersByEmail ? 'yes' : 'no',
  };
  for (const p of SWITCHES) data[p.id] = policyState(policies.get(p.id) ?? []);
  return data;
}

async function userPermissions(users: UserService, page: AdminPageRequest): Promise<Map<string, readonly string[]>> {
  const entries = await users.permissionEntries(page.admin);
  return new Map(entries.map((e) => [e.permission, e.groups]));
}

async function settingsPage(deps: SettingsPageDeps, page: AdminPageRequest) {
  const { users, settings, mailer } = deps;
  const policies = await userPermissions(users, page);
  const current = await settings.current();
  const by = page.admin.user.name;
  let done: string | undefined;

  const save: ActionCallback = async function (this: HTMLForm) {
    const posted = this.getFormValues() ?? {};
    const [ok, data, errors] = await this.validate(posted);
    if (!ok) return [false, await this.render(data, [], errors)];
    const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
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
    fields: await settingsFields(deps, policies, current),
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'save', method: save, name: 'Save', cssClass: 'btn btn-primary' },
      { id: 'test', method: sendTest, name: 'Send test mail', cssClass: 'btn secondary' },
      { id: 'reset', method: reset, name: 'Use the boot configuration', cssClass: 'btn secondary' },
    ],
  });
  const { result, html } = await form.process({ defaultData: formData(current, policies) });
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
