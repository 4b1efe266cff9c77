/**
 * Row types of every table, as Kysely sees them. Times are milliseconds since the epoch;
 * booleans are integers 0/1 and lists are JSON text, so one query code serves SQLite and
 * PostgreSQL alike.
 */
import type { DataStoreTables } from './datastore-schema.js';
import type { FileStoreTables } from './filestore-schema.js';
import type { IdentityProviderTables } from './identity-provider-schema.js';
import type { ScimTables } from './scim-schema.js';

export type UserState = 'pending' | 'active' | 'disabled';
/** Why a pending account waits: its own mail confirmation, or an administrator. */
export type PendingReason = 'optin' | 'review';

export interface UsersTable {
  id: string;
  name: string;
  /** Lower-cased name: uniqueness ignores case. */
  name_key: string;
  email: string | null;
  /** Lower-cased email, null when the account has none. */
  email_key: string | null;
  realname: string;
  password_hash: string;
  data: string;
  notify: number;
  groups: string;
  state: UserState;
  pending: PendingReason | null;
  created: number;
  activity: number | null;
  failed_signins: number;
  locked_until: number | null;
  /** Locks in a row: each lasts longer (users/signin-throttle.ts). */
  lockouts: number;
  /** 1 while the account is anonymous (users/signin-methods/anonymous/): made without a form, not upgraded yet. */
  anonymous: number;
}

/** The webhooks administrators configured (storage/webhook-store.ts). */
interface WebhooksTable {
  id: string;
  url: string;
  secret: string;
  service: string;
  /** A JSON list of event kinds (core/webhooks.ts). */
  kinds: string;
  created: number;
}

/** The job queue (storage/job-store.ts, core/job-queue.ts): all work that runs after an answer. */
interface JobsTable {
  id: string;
  kind: string;
  subject: string | null;
  dedupe_key: string | null;
  /** The kind's payload as JSON. */
  payload: string;
  state: string;
  attempts: number;
  created: number;
  /** When it runs next; null once done or failed. */
  run_at: number | null;
  claimed_until: number | null;
  last_status: number | null;
  last_error: string | null;
  finished_at: number | null;
  /** The request that caused the job (migration 2026-12-03-01), or null. */
  request_id: string | null;
}

/** The recent requests (storage/request-log-store.ts), kept with `requestLog.keep`. */
interface RequestLogsTable {
  /** ISO 8601 in UTC. */
  at: string;
  request_id: string;
  method: string;
  url: string;
  route: string | null;
  status: number;
  ms: number;
  user_id: string | null;
  /** Null when the client had gone before the answer's end. */
  address: string | null;
  code: string | null;
}

/**
 * Counts per key in the current window: failed sign-ins per address,
 * mails per account and recipient (`countAttempt` in users/user-repo.ts).
 */
interface ThrottleCountsTable {
  key: string;
  window_start: number;
  count: number;
}

interface SessionsTable {
  token_hash: string;
  /** Public: the first 16 characters of the token's hash (users/session-ops.ts). */
  id: string;
  user_id: string;
  /** How the session was signed into: `password`, `totp`, `recovery`, `mail` (users/sessions.ts). */
  method: string;
  /** The client's User-Agent, cut to 200 characters. */
  device: string | null;
  address: string | null;
  created: number;
  expires: number;
  /** Kept to about five minutes (users/sessions.ts, LAST_USED_STEP_MS). */
  last_used: number;
  /** The administrator's user id when this session is an impersonation (users/impersonation-ops.ts). */
  impersonator: string | null;
}

/** One TOTP secret per account; `confirmed` once a first code was right (users/second-factor-ops.ts). */
interface TotpFactorsTable {
  user_id: string;
  secret: string;
  created: number;
  confirmed: number | null;
  /** The time step of the last code taken: a code of that step or before is refused. */
  last_step: number;
}

/** A provider account that signs into a Roost account (users/provider-ops.ts). */
interface ProviderLinksTable {
  provider: string;
  /** The provider's id of its account (`sub`, or GitHub's numeric id). */
  subject: string;
  user_id: string;
  /** The email the provider gave at the link, for the account page. */
  email: string | null;
  created: number;
}

/** A provider sign-in under way, by the hash of its `state` (users/provider-ops.ts). */
interface ProviderFlowsTable {
  state_hash: string;
  provider: string;
  verifier: string;
  nonce: string;
  redirect: string;
  /** Set when a signed-in user links the provider: the account it joins. */
  link_user: string | null;
  expires: number;
}

/** A SAML sign-in under way (users/signin-methods/saml/saml-repo.ts). */
interface SamlFlowsTable {
  relay_hash: string;
  /** Null for an answer the IdP sent unasked (IdP-initiated). */
  request_id: string | null;
  connection: string;
  redirect: string;
  /** The checked answer's profile (JSON), once the ACS has it. */
  profile: string | null;
  expires: number;
}

/** An account's phone for codes by SMS (users/signin-methods/sms-code/): numbers in E.164. */
interface SmsPhonesTable {
  user_id: string;
  /** The confirmed number, or null. */
  phone: string | null;
  /** A number being added, until its code is entered. */
  pending: string | null;
  confirmed: number | null;
}

/** A code sent by SMS, one per account and purpose (`enrol`, `signin`, `step`), kept as its hash. */
interface SmsCodesTable {
  user_id: string;
  purpose: string;
  code_hash: string;
  phone: string;
  /** Wrong codes entered against it. */
  tries: number;
  created: number;
  expires: number;
}

/** A WebAuthn credential (users/signin-methods/passkey/passkey-ops.ts); binary values as base64url. */
interface PasskeysTable {
  id: string;
  user_id: string;
  public_key: string;
  /** The authenticator's signature counter at the last use (0: it keeps none). */
  counter: number;
  /** JSON list of transports (`internal`, `usb`, `hybrid`…), as the browser said at registration. */
  transports: string;
  name: string;
  created: number;
  last_used: number | null;
}

/** A passkey ceremony's challenge, by its hash, until answered once (users/signin-methods/passkey/passkey-ops.ts). */
interface PasskeyChallengesTable {
  challenge_hash: string;
  /** `register` (names its account) or `signin`. */
  purpose: string;
  user_id: string | null;
  expires: number;
}

interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created: number;
}

/**
 * `challenge`: the first step of a sign-in that needs a second factor (users/signin-challenge.ts);
 * `signin_code`: a sign-in by mail, its code's hash as payload (users/signin-methods/mail-code/);
 * `provider_grant`: a provider sign-in handed to an app, for `signinProvider2` (users/provider-ops.ts).
 */
export type UserTokenPurpose =
  | 'activate'
  | 'verify_email'
  | 'reset'
  | 'challenge'
  | 'signin_code'
  | 'provider_grant'
  /** A device that skips the second factor until it expires (users/trusted-devices.ts). */
  | 'trusted_device';

interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: UserTokenPurpose;
  /** For `verify_email`, the new address. */
  payload: string | null;
  created: number;
  expires: number;
}

interface PermissionsTable {
  service: string;
  permission: string;
  groups: string;
}

/** Runtime settings (core/runtime-settings.ts): JSON values by configuration path. */
interface SettingsTable {
  key: string;
  value: string;
  changed: number | null;
  changed_by: string | null;
}

/** An API key (keys/key-repo.ts): its secret only as a hash; `scopes` a JSON list (core/api-keys.ts). */
interface ApiKeysTable {
  id: string;
  name: string;
  secret_hash: string;
  scopes: string;
  created: number;
  created_by: string;
  expires: number | null;
  last_used: number | null;
  revoked: number | null;
}

/** One recorded change or administrator action (storage/audit-store.ts); `before`/`after` JSON. */
interface AuditLogTable {
  id: string;
  at: number;
  actor: string;
  actor_name: string;
  address: string | null;
  action: string;
  target: string;
  before: string | null;
  after: string | null;
}

/** A backup's run or a restore check (migration 2026-12-02-03; storage/backup-run-store.ts). */
interface BackupRunsTable {
  id: string;
  kind: string;
  name: string;
  state: string;
  started: number;
  finished: number | null;
  rows: number;
  files: number;
  bytes: number;
  size: number | null;
  tables: string | null;
  error: string | null;
}

/** Keys the sign-in makes for itself, once (users/signin-key-repo.ts): the proof-of-work's HMAC key. */
interface SigninKeysTable {
  name: string;
  value: string;
  created: number;
}

/** The devices an account signed in from (users/device-repo.ts): the hash of its id and User-Agent. */
interface KnownDevicesTable {
  user_id: string;
  device_hash: string;
  first_seen: number;
  last_seen: number;
}

/** Tables of the user identity service and the shared ones (permissions, settings). */
interface CoreTables {
  users: UsersTable;
  sessions: SessionsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  provider_links: ProviderLinksTable;
  provider_flows: ProviderFlowsTable;
  saml_flows: SamlFlowsTable;
  passkeys: PasskeysTable;
  sms_phones: SmsPhonesTable;
  sms_codes: SmsCodesTable;
  passkey_challenges: PasskeyChallengesTable;
  user_tokens: UserTokensTable;
  permissions: PermissionsTable;
  settings: SettingsTable;
  throttle_counts: ThrottleCountsTable;
  webhooks: WebhooksTable;
  jobs: JobsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  request_logs: RequestLogsTable;
  backup_runs: BackupRunsTable;
  signin_keys: SigninKeysTable;
  known_devices: KnownDevicesTable;
}

export interface Database extends CoreTables, DataStoreTables, FileStoreTables, IdentityProviderTables, ScimTables {}
