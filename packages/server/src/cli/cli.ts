import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOST_VERSION } from '../core/version.js';
import { ConfigError, loadConfig, type Config } from '../core/config.js';
import { formatTime } from '../core/clock.js';
import { openServices } from '../services.js';
import { SETUP_LINK_MINUTES } from '../admin/setup-links.js';
import { belowOwasp, DuplicateUserError, programCaller } from '../users/index.js';
import { backup, restore } from '../backups/backup-archive.js';
import { dev } from './dev.js';
import { sweepBlobs } from './sweep.js';
import { recordTypes } from './record-types.js';
import { formatBytes, progressLine } from './progress.js';
import { userChange, USER_CHANGES, whereLine, type UserChange } from './user-commands.js';
import { groupListProblem } from '../core/permissions.js';

const USAGE = `Usage: roost <command> [options]

Commands:
  serve                       start the server (the default)
  dev                         serve, and start again when a file of hooks/ or roost.config.* changes
  --version                   print the version
  migrate                     bring the database schema up to date
  user add --name N --email E --password P [--group G ...] [--realname R]
                              create an active account (--group admins makes an administrator)
  user list                   list the accounts
  user passwd <who> --password P
                              set an account's password (ends its sessions)
  user groups <who> [--group G ...]
                              set an account's groups (none without --group)
  user disable <who> | user enable <who> | user remove <who>
                              disable (and sign out), enable, or remove an account
                              (<who>: a name, an email or an id)
  backup <dir | file.tar[.gz]> [--progress]
                              a consistent copy of the database and every file's contents
                              (the server may keep running)
  restore <dir | file.tar[.gz]> [--keep-sessions] [--progress]
                              load a backup into an empty database (and the configured blob
                              stores); sessions are left out unless --keep-sessions
                              (progress is drawn on a terminal, or always with --progress)
  sweep-blobs [--min-age-minutes N]
                              delete stored file contents no file refers to (left by a crash
                              between upload and commit), older than N minutes (60)
  types [--out FILE]          write the TypeScript types of every collection's records (those of
                              the configuration and those made over the API) to FILE
                              (roost-types.ts), for @roost/client

Configuration comes from roost.config.json / roost.config.ts in the working directory and
ROOST_* environment variables (ROOST_PORT, ROOST_HOST, ROOST_DATA_DIR, ROOST_DATABASE_URL,
ROOST_PUBLIC_URL, ROOST_SMTP_URL, ROOST_REDIS_URL, ROOST_LOG_LEVEL, ROOST_CONFIG). See docs/configuration.md.`;

/** Runs one command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve();
      case 'dev':
        return await dev(process.cwd());
      case 'migrate':
        return await migrate();
      case 'user':
        return await user(rest);
      case 'backup':
        return await backupCommand(rest);
      case 'restore':
        return await restoreCommand(rest);
      case 'sweep-blobs':
        return await sweepCommand(rest);
      case 'types':
        return await typesCommand(rest);
      case 'version':
      case '--version':
      case '-v':
        console.log(`roost ${ROOST_VERSION}`);
        return 0;
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return 0;
      default:
        console.error(`roost: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    console.error(`roost: ${(err as Error).message}`);
    return 1;
  }
}

/** What a stop may take beyond the HTTP server's grace period: the database's and the workers' close. */
const STOP_MARGIN_MS = 10_000;

async function serve(): Promise<number> {
  const config = await loadConfig();
  // Loaded here, not at the top: the other commands need no web server (src/services.ts).
  const { createRoost } = await import('../roost.js');
  const roost = await createRoost(config);
  // Listened for before the server listens: a SIGTERM right after the start (while the first
  // run's check below still runs) is a clean stop too, not Node's default kill.
  const stopAsked = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  let url: string;
  try {
    url = await roost.listen();
  } catch (err) {
    await roost.close();
    throw explainListenError(err, config);
  }
  roost.log.info(
    { version: ROOST_VERSION, database: roost.dialect, dataDir: config.dataDir, listen: url },
    `Roost listens on ${url} (${roost.dialect}, data in ${config.dataDir})`,
  );
  // What a newcomer looks for first (docs/operations.md, "First run").
  roost.log.info(
    `Admin backend: ${url}/admin · API docs: ${url}/docs (OpenAPI at ${url}/openapi.json) · health: ${url}/health, ` +
      `${url}/ready`,
  );
  if (belowOwasp(config.users.passwordHashing)) {
    const { memoryKiB, iterations } = config.users.passwordHashing;
    roost.log.warn(
      { passwordHashing: config.users.passwordHashing },
      `users.passwordHashing (memoryKiB ${memoryKiB}, iterations ${iterations}) is below every argon2id ` +
        'setting OWASP recommends: a stolen database is cheap to guess from. Fine for tests, not for real accounts ' +
        '(docs/configuration.md).',
    );
  }
  if (!(await roost.users.hasAdministrator())) {
    const link = `${url}/admin/setup?token=${roost.setupLinks.issue()}`;
    roost.log.warn(
      { setupUrl: link },
      `No administrator yet. Open ${link} within ${SETUP_LINK_MINUTES} minutes to make the first one in the browser ` +
        '(the link works once), or run: npx roost user add --name admin --email you@example.com --password ' +
        `'<a long secret>' --group admins`,
    );
  }
  await stopAsked;
  // The drain (shutdownDrainSeconds), then the HTTP server closes its last connections after
  // shutdownGraceSeconds (http/shutdown.ts); should anything else hold the process (a database that
  // does not answer), it still ends, and says so.
  const deadline = setTimeout(
    () => {
      roost.log.error('Roost did not stop in time; exiting');
      process.exit(1);
    },
    (config.shutdownDrainSeconds + config.shutdownGraceSeconds) * 1000 + STOP_MARGIN_MS,
  );
  deadline.unref();
  await roost.stop();
  roost.log.info({ version: ROOST_VERSION }, 'Roost stopped');
  return 0;
}

/** Why Roost cannot listen, with the setting that fixes it (docs/operations.md, "When Roost does not start"). */
function explainListenError(err: unknown, config: Config): Error {
  const code = (err as { code?: unknown }).code;
  const where = `${config.host}:${config.port}`;
  const explained = (message: string) => new Error(`${message} (${(err as Error).message})`, { cause: err });
  if (code === 'EADDRINUSE')
    return explained(
      `port ${config.port} on ${config.host} is in use by another program (another Roost?): stop it, or set port in ` +
        'roost.config.json or ROOST_PORT to a free one',
    );
  if (code === 'EACCES')
    return explained(
      `this user may not listen on ${where}: ports below 1024 need privileges; use a port above 1023 (ROOST_PORT) ` +
        'behind a reverse proxy',
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return explained(
      `host ${config.host} is not an address of this machine: set host (ROOST_HOST) to 127.0.0.1, 0.0.0.0 or one of ` +
        'its addresses',
    );
  return err instanceof Error ? err : new Error(String(err));
}

async function migrate(): Promise<number> {
  const config = await loadConfig();
  const services = await openServices(config);
  await services.close();
  console.log(`database schema is up to date (${whereLine(config)})`);
  return 0;
}

async function backupCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { progress: { type: 'boolean' } },
  });
  if (positionals.length !== 1) {
    console.error(`roost backup: give one directory or .tar / .tar.gz file\n\n${USAGE}`);
    return 2;
  }
  const config = await loadConfig();
  const started = Date.now();
  const progress = progressLine('backup', { force: values.progress === true });
  const manifest = await backup(config, positionals[0]!, { onProgress: progress.update });
  progress.done();
  const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
  console.log(
    `backup written to ${positionals[0]}: ${manifest.tables.length} tables, ${rows} rows, ${manifest.blobs.count} ` +
      `files (${manifest.blobs.bytes} bytes, ${formatBytes(manifest.blobs.bytes)}) from ${manifest.dialect} in ` +
      `${seconds(started)} (${whereLine(config)})`,
  );
  return 0;
}

async function restoreCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { 'keep-sessions': { type: 'boolean' }, progress: { type: 'boolean' } },
  });
  if (positionals.length !== 1) {
    console.error(`roost restore: give one backup directory or file\n\n${USAGE}`);
    return 2;
  }
  const config = await loadConfig();
  const started = Date.now();
  const progress = progressLine('restore', { force: values.progress === true });
  const summary = await restore(config, positionals[0]!, {
    keepSessions: values['keep-sessions'] === true,
    onProgress: progress.update,
  });
  progress.done();
  const rows = summary.tables.reduce((n, t) => n + t.rows, 0);
  const leftOut = summary.skipped.length ? ` (left out: ${summary.skipped.join(', ')}; users sign in again)` : '';
  console.log(
    `restored ${summary.tables.length} tables, ${rows} rows, ${summary.blobs} files (${formatBytes(summary.bytes)}) ` +
      `in ${seconds(started)}${leftOut} (${whereLine(config)})`,
  );
  return 0;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function sweepCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { 'min-age-minutes': { type: 'string' } } });
  const minutes = values['min-age-minutes'] === undefined ? 60 : Number(values['min-age-minutes']);
  if (!Number.isFinite(minutes) || minutes < 0) {
    console.error('roost sweep-blobs: --min-age-minutes takes a number of minutes (0 or more)');
    return 2;
  }
  const config = await loadConfig();
  const { checked, deleted } = await sweepBlobs(config, { minAgeMs: minutes * 60_000 });
  console.log(`checked ${checked} stored contents, deleted ${deleted} that no file refers to (${whereLine(config)})`);
  return 0;
}

/**
 * The collections' record types (cli/record-types.ts). They are read from the database with the
 * configuration's applied, as `serve` starts: the collections made over the API are there, and
 * no server or administrator token is needed (docs/decisions.md, "`roost types` reads the database").
 */
async function typesCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { out: { type: 'string' } } });
  const out = values.out ?? 'roost-types.ts';
  const problem = await outputProblem(out);
  if (problem) {
    console.error(`roost types: ${problem}`);
    return 2;
  }
  const config = await loadConfig();
  const services = await openServices(config);
  let names: string[];
  let text: string;
  try {
    const collections = services.collections.names().flatMap((name) => services.collections.state(name) ?? []);
    names = collections.map((c) => c.name);
    text = await recordTypes(collections);
  } finally {
    await services.close();
  }
  await writeFile(out, text);
  const list = names.length ? `: ${names.join(', ')}` : ' (no collection yet)';
  console.log(`wrote ${out}, the record types of ${names.length} collection(s)${list} (${whereLine(config)})`);
  return 0;
}

/** Why `file` cannot be written, told before the database is opened; null when it can. */
async function outputProblem(file: string): Promise<string | null> {
  if (file.trim() === '') return '--out takes a file name';
  const folder = await stat(dirname(resolve(file))).catch(() => null);
  if (!folder?.isDirectory()) return `the folder of ${file} does not exist: make it first`;
  if ((await stat(file).catch(() => null))?.isDirectory()) return `${file} is a folder: give a file name`;
  return null;
}

async function user(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const config = await loadConfig();
  if (sub === 'add') return userAdd(config, rest);
  if (sub === 'list') return userList(config);
  if ((USER_CHANGES as readonly string[]).includes(sub ?? '')) return userChange(config, sub as UserChange, rest);
  console.error(`roost: unknown user command "${sub ?? ''}"\n\n${USAGE}`);
  return 2;
}

async function userAdd(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      realname: { type: 'string' },
      group: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const missing = (['name', 'email', 'password'] as const).filter((k) => !values[k]);
  if (missing.length) {
    console.error(`roost user add: missing ${missing.map((m) => `--${m}`).join(', ')}`);
    return 2;
  }
  const groupsProblem = groupListProblem(values.group ?? []);
  if (groupsProblem) {
    console.error(`roost user add: ${groupsProblem}`);
    return 2;
  }
  const services = await openServices(config);
  try {
    const problems = services.users.checkNewAccount({
      name: values.name!,
      email: values.email!,
      password: values.password!,
    });
    if (problems.length) {
      const rules: Record<string, string> = {
        name: `a name has ${config.users.nameMinLength} to 40 characters`,
        password: `a password has ${config.users.passwordMinLength} to 256 characters`,
        email: 'an email address looks like name@example.com',
      };
      console.error(
        `roost user add: ${problems.map(([f, r]) => `${f} ${r} (${rules[f] ?? 'see docs/users.md'})`).join(', ')}`,
      );
      return 2;
    }
    const created = await services.users.createUser(programCaller('roost-cli'), {
      name: values.name!,
      email: values.email!,
      password: values.password!,
      realname: values.realname ?? '',
      groups: values.group ?? [],
      data: '',
      notify: false,
      state: 'active',
      pending: null,
    });
    console.log(
      `created ${created.name} (${created.id})${created.groups.length ? ` in ${created.groups.join(', ')}` : ''} ` +
        `(${whereLine(config)})`,
    );
    return 0;
  } catch (err) {
    if (err instanceof DuplicateUserError) {
      console.error(`roost user add: a user with this ${err.field} exists`);
      return 1;
    }
    throw err;
  } finally {
    await services.close();
  }
}

async function userList(config: Config): Promise<number> {
  const services = await openServices(config);
  try {
    const { users, total } = await services.users.listUsers({ start: 1, sort: 'name', order: '<' }, 10_000);
    const rows = users.map((u) => [u.name, u.email ?? '', u.state, u.groups.join(','), formatTime(u.activity)]);
    const header = ['name', 'email', 'state', 'groups', 'activity'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
    const line = (r: string[]) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd();
    console.log(line(header));
    for (const r of rows) console.log(line(r));
    console.log(`${total} user${total === 1 ? '' : 's'} (${whereLine(config)})`);
    return 0;
  } finally {
    await services.close();
  }
}
