import { after, before } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type Config, type ConfigInput } from '../../src/core/config.js';
import { postgres } from '../../src/storage/database.js';
import { newId } from '../../src/core/ids.js';
import { readOutbox, type OutboxMail } from '../../src/mail/outbox-mailer.js';
import { createRoost, type Roost } from '../../src/roost.js';
import { openServices, type RoostOverrides } from '../../src/services.js';
import { programCaller } from '../../src/users/index.js';
import { startPgBouncer, type TestPgBouncer } from './pgbouncer.js';
import { migratedTemplate } from './postgres-template.js';
import { sharedS3 } from './s3-server.js';
import { freePort } from './free-port.js';

export interface CallOptions {
  token?: string;
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  /** Raw body instead of JSON (sent as is). */
  raw?: string;
}

export interface CallResult {
  status: number;
  // The bodies are whatever the server answered; each test asserts the members it needs.
  // biome-ignore lint/suspicious/noExplicitAny: (the reason above)
  body: any;
  headers: Headers;
}

export { freePort };

export interface TestServer {
  url: string;
  roost: Roost;
  /** POST (or `method`) `/users/api/<op>` with a JSON body. */
  users(op: string, body?: unknown, options?: CallOptions): Promise<CallResult>;
  /** Any path, any method. */
  request(path: string, body?: unknown, options?: CallOptions): Promise<CallResult>;
  /** The outbox's mails, once the mail queue has delivered what was due (mails leave the request path). */
  outbox(): Promise<OutboxMail[]>;
  /** The newest outbox mail to `to` (throws when there is none), after the queue's deliveries. */
  lastMail(to: string): Promise<OutboxMail>;
  /** Create an account directly (no permission needed) and return its token. */
  createUser(name: string, options?: { groups?: string[]; password?: string; email?: string }): Promise<string>;
  /** An administrator's token (created on first use). */
  adminToken(): Promise<string>;
  /** Grant (replace) a permission of the user service. */
  grant(permission: string, groups: string[]): Promise<void>;
  close(): Promise<void>;
}

export const PASSWORD = 'a-good-password';

/** `users.passwordHashing` of every test server that sets none (startServer). */
const TEST_PASSWORD_HASHING = { memoryKiB: 64, iterations: 1 } as const;

/** A database of its own on the test PostgreSQL server, as Roost is told where it is. */
export interface TestPostgresDatabase {
  /** The URL Roost queries through: PgBouncer's with ROOST_TEST_PGBOUNCER=1, else the server's. */
  url: string;
  /** The server's own URL (LISTEN, migrations: storage/pg-connections.ts). */
  directUrl: string;
  /** The configuration members that name it: `databaseUrl`, and `databaseDirectUrl` through PgBouncer. */
  settings: { databaseUrl: string; databaseDirectUrl?: string };
  /** The same as environment variables of a `roost` process. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * With `ROOST_TEST_DIALECT=postgres`, every test server gets a database of its own on the
 * PostgreSQL server of `ROOST_TEST_DATABASE_URL` (whose own database is only used to create and
 * drop the per-test ones). With `ROOST_TEST_PGBOUNCER=1` (`npm run test:pgbouncer`,
 * CONTRIBUTING.md) Roost reaches it through PgBouncer in transaction mode, the direct URL beside.
 * The database is empty, as a new deployment's (createMigratedPostgresDatabase: already migrated).
 */
export function createPostgresDatabase(adminUrl: string = postgresAdminUrl()): Promise<TestPostgresDatabase> {
  return newPostgresDatabase(adminUrl, null);
}

/**
 * A database as createPostgresDatabase's, already migrated: a copy of the migrated template
 * (test/helpers/postgres-template.ts), in which Roost finds no migration left to run. What a test
 * server starts on; a test of the migrations themselves (`roost migrate`, an upgrade, a restore
 * into an empty database, processes that migrate side by side) takes an empty one.
 */
export async function createMigratedPostgresDatabase(
  adminUrl: string = postgresAdminUrl(),
): Promise<TestPostgresDatabase> {
  return newPostgresDatabase(adminUrl, await migratedTemplate(adminUrl));
}

async function newPostgresDatabase(adminUrl: string, template: string | null): Promise<TestPostgresDatabase> {
  const name = `roost_test_${newId().replaceAll('-', '').slice(0, 16)}`;
  const admin = new (postgres().Client)({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const direct = new URL(adminUrl);
  direct.pathname = `/${name}`;
  const directUrl = direct.toString();
  const bouncer = process.env.ROOST_TEST_PGBOUNCER === '1' ? await sharedPgBouncer(adminUrl) : null;
  const url = bouncer ? bouncer.pooled(directUrl) : directUrl;
  return {
    url,
    directUrl,
    settings: bouncer ? { databaseUrl: url, databaseDirectUrl: directUrl } : { databaseUrl: url },
    env: bouncer ? { ROOST_DATABASE_URL: url, ROOST_DATABASE_DIRECT_URL: directUrl } : { ROOST_DATABASE_URL: url },
    async drop() {
      await bouncer?.forget(name);
      const client = new (postgres().Client)({ connectionString: adminUrl });
      await client.connect();
      // pg's Pool.end() resolves before its connections have closed; a forced drop would
      // terminate those still closing, and their clients throw an uncaught error (a flaky
      // test under load). Wait for them to go first (a second at most).
      for (let i = 0; i < 50; i++) {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

let pgBouncer: Promise<TestPgBouncer> | undefined;

/** The test process's PgBouncer, in front of the test PostgreSQL server; it ends with the process. */
function sharedPgBouncer(adminUrl: string): Promise<TestPgBouncer> {
  pgBouncer ??= freePort().then((port) => startPgBouncer(port, adminUrl, { unref: true }));
  return pgBouncer;
}

export function postgresAdminUrl(): string {
  const url = process.env.ROOST_TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'ROOST_TEST_DIALECT=postgres needs ROOST_TEST_DATABASE_URL (postgres://user:password@127.0.0.1:5432/postgres)',
    );
  return url;
}

/**
 * The test server of one `describe` (or of a file, at its top level): started before its first
 * test, closed after its last, as the hooks of node:test. The handle works in tests and in hooks
 * registered after this call; its methods also in hooks that run beside its own (Node 20 runs a
 * file's top-level `before` hooks side by side): they wait for the server.
 */
export function useServer(input: ConfigInput = {}, overrides: RoostOverrides = {}): TestServer {
  let server: TestServer | undefined;
  let starting: Promise<TestServer> | undefined;
  before(() => {
    starting = startServer(input, overrides).then((started) => (server = started));
    return starting;
  });
  after(() => server?.close());
  return new Proxy({} as TestServer, {
    get(_target, member) {
      if (server) return Reflect.get(server, member);
      const pending = starting;
      if (!pending || member === 'url' || member === 'roost')
        throw new Error('the test server is used before it started: use it in a test or a later hook');
      return async (...args: unknown[]) => {
        const method = Reflect.get(await pending, member) as (...args: unknown[]) => unknown;
        return method(...args);
      };
    },
  });
}

/**
 * Start a real Roost on 127.0.0.1 (random port) with a fresh data directory (or the given
 * `dataDir`, which is then the caller's to remove).
 */
export async function startServer(input: ConfigInput = {}, overrides: RoostOverrides = {}): Promise<TestServer> {
  const ownDataDir = input.dataDir === undefined;
  const dataDir = input.dataDir ?? (await mkdtemp(join(tmpdir(), 'roost-test-')));
  const pgDb =
    process.env.ROOST_TEST_DIALECT === 'postgres' && input.databaseUrl === undefined
      ? await createMigratedPostgresDatabase()
      : null;
  // With ROOST_TEST_BLOBS=s3 (the PostgreSQL pass of `npm test`), file contents go to a bucket
  // of their own on a real S3-compatible server, as in a deployment of several processes.
  const s3Blobs =
    process.env.ROOST_TEST_BLOBS === 's3' && input.blobs === undefined ? await (await sharedS3()).newBucket() : null;
  const config = parseConfig({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    rateLimit: { max: 10_000, signinFailures: 10_000, mailsPerAccount: 10_000, mailsPerRecipient: 10_000 },
    ...(s3Blobs ? { blobs: s3Blobs } : {}),
    ...input,
    // The smallest argon2id cost: a hash in microseconds instead of 20 ms of CPU, which was the
    // largest share of the suite's time (CONTRIBUTING.md). A test of the cost itself gives its own.
    users: { passwordHashing: TEST_PASSWORD_HASHING, ...input.users },
    dataDir,
    ...pgDb?.settings,
  });
  const roost = await createRoost(config, overrides);
  const url = await roost.listen({ port: config.port, host: '127.0.0.1' });

  async function request(path: string, body?: unknown, options: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['x-auth-token'] = options.token;
    let payload: string | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const method = options.method ?? (payload === undefined ? 'GET' : 'POST');
    const res = await fetch(url + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  let admin: Promise<string> | undefined;
  const server: TestServer = {
    url,
    roost,
    request,
    users: (op, body = {}, options = {}) => request(`/users/api/${op}`, body, { method: 'POST', ...options }),
    async outbox() {
      await roost.mailQueue.idle();
      return readOutbox(roost.outboxDir);
    },
    async lastMail(to) {
      await roost.mailQueue.idle();
      const mails = (await readOutbox(roost.outboxDir)).filter((m) => m.to === to);
      const mail = mails.at(-1);
      if (!mail) throw new Error(`no mail to ${to}`);
      return mail;
    },
    async createUser(name, options = {}) {
      const password = options.password ?? PASSWORD;
      await addAccount(roost, name, { ...options, password });
      const res = await server.users('token', { identity: name, password });
      if (!res.body?.token) throw new Error(`no token for ${name}: ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    adminToken() {
      admin ??= server.createUser('admin', { groups: ['admins'] });
      return admin;
    },
    async grant(permission, groups) {
      const res = await server.users(
        'setPermissions',
        { permissions: [{ permission, groups, action: 'replace' }] },
        { token: await server.adminToken() },
      );
      if (res.body?.result !== true) throw new Error(`grant failed: ${JSON.stringify(res.body)}`);
    },
    async close() {
      await roost.close();
      await pgDb?.drop();
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

interface AccountOptions {
  groups?: string[];
  password?: string;
  email?: string;
  realname?: string;
  state?: 'active' | 'disabled' | 'pending';
}

/**
 * An account made beside servers that run as processes of their own, before they start, as `roost user add`
 * makes it: services opened on `config` (which also migrates the database), the account, services closed.
 */
export async function addAccountBeside(config: Config, name: string, options: AccountOptions = {}): Promise<void> {
  const services = await openServices(config);
  try {
    await addAccount(services, name, options);
  } finally {
    await services.close();
  }
}

/**
 * An account made directly through the users service (no permission, no mail): active unless
 * `state` says otherwise (a pending one awaits an administrator's review).
 */
export function addAccount(roost: Pick<Roost, 'users'>, name: string, options: AccountOptions = {}): Promise<unknown> {
  const state = options.state ?? 'active';
  return roost.users.createUser(programCaller('test'), {
    name,
    email: options.email ?? `${name}@example.com`,
    password: options.password ?? PASSWORD,
    realname: options.realname ?? '',
    data: '',
    notify: false,
    groups: options.groups ?? [],
    state,
    pending: state === 'pending' ? 'review' : null,
  });
}

/** The token in a mailed link (`...?token=<token>`). */
export function tokenFromMail(mail: OutboxMail): string {
  const match = /[?&]token=([^\s&"<]+)/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no token in mail: ${mail.text}`);
  return decodeURIComponent(match[1]);
}
