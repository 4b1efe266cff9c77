import type { FieldConf, FieldValidator } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { EVERYONE, NOONE } from '../../core/permissions.js';
import {
  RUNTIME_SETTINGS,
  type RuntimeSettingKey,
  type RuntimeSettings,
  type StoredSetting,
} from '../../core/runtime-settings.js';
import { textParam } from '../page-kit/page-parts.js';
import type { SettingsPageDeps } from './settings-page.js';
import { maskedProviders, maskSmtpUrl, unmaskProviders } from './settings-secrets.js';

/**
 * The fields of the settings page (admin/pages/settings-page.ts), each with its origin (boot
 * configuration or changed here, when and by whom), its check (the settings store's own
 * schema) and its value from the current settings; the sign-up and sign-in switches.
 */

/**
 * Operations an administrator turns on and off here: the five sign-up policies and sign-in by
 * mail. "On" grants the operation's permission to everyone, "off" to nobody. Sign-in by mail
 * came later: a form posted without its choice (an older page) leaves it as it is.
 */
export const SWITCHES = [
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
export function policyState(groups: readonly string[]): 'on' | 'off' | 'custom' {
  if (groups.includes(EVERYONE)) return 'on';
  if (groups.every((g) => g === NOONE)) return 'off';
  return 'custom';
}

/** Addresses typed one per line (or separated by white space). */
export const addressList = (text: string): string[] => text.split(/\s+/).filter((a) => a !== '');

/** Group names typed separated by commas (white space around them does not count). */
export const groupList = (text: string): string[] =>
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
  rateLimitMax: 'Enter a whole number from 1 to 1000000.',
  rateLimitWindowSeconds: 'Enter a whole number of seconds from 1 to 86400.',
};

/** The field validator of a setting: the same schema the settings store validates with. */
export function schemaCheck(key: RuntimeSettingKey): FieldValidator {
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

export async function settingsFields(
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
      id: 'rateLimitMax',
      name: 'Rate limit: requests per window',
      datatype: 'number',
      min: 1,
      max: 1_000_000,
      validator: schemaCheck('rateLimitMax'),
      description:
        'Per client address, for each rate-limited operation (sign-up, password reset, mails and the like). ' +
        said('rateLimitMax'),
    },
    {
      id: 'rateLimitWindowSeconds',
      name: 'Rate limit: window in seconds',
      datatype: 'number',
      min: 1,
      max: 86_400,
      validator: schemaCheck('rateLimitWindowSeconds'),
      description: `From 1 to 86400 (a day). ${said('rateLimitWindowSeconds')}`,
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

export function formData(current: RuntimeSettings, policies: Map<string, readonly string[]>): Record<string, unknown> {
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
    rateLimitMax: current.rateLimitMax,
    rateLimitWindowSeconds: current.rateLimitWindowSeconds,
  };
  for (const p of SWITCHES) data[p.id] = policyState(policies.get(p.id) ?? []);
  return data;
}
