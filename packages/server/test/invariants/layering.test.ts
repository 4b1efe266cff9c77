import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Imports run one way: http/admin → realtime → domains (users, datastore, filestore) → storage, core.
 * The domain never sees Fastify; the HTTP layer never writes SQL. This reads every source
 * file's imports and fails on an edge the table does not allow.
 */
const src = new URL('../../src/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const layerOf = (file: string) => relative(src, file).split('/')[0] ?? '';
const DOMAINS = ['users', 'datastore', 'filestore'];

/** Which Roost folders (and outside packages) each layer may not import. */
const FORBIDDEN: Record<string, { folders: string[]; packages: RegExp[] }> = {
  core: {
    folders: ['storage', 'mail', 'http', 'admin', 'cli', ...DOMAINS],
    packages: [/^fastify/, /^@fastify\//, /^kysely/, /^better-sqlite3/, /^pg$/],
  },
  storage: { folders: ['http', 'admin', 'cli', 'mail', ...DOMAINS], packages: [/^fastify/, /^@fastify\//] },
  mail: { folders: ['http', 'admin', 'storage', ...DOMAINS], packages: [/^fastify/, /^@fastify\//, /^kysely/] },
  http: { folders: ['storage', 'admin', 'cli'], packages: [/^kysely/, /^better-sqlite3/, /^pg$/] },
  // Live changes (issue 21): events from the core's bus, the domains through their index only.
  realtime: {
    folders: ['storage', 'mail', 'http', 'admin', 'cli'],
    packages: [/^fastify/, /^@fastify\//, /^kysely/, /^better-sqlite3/, /^pg$/],
  },
  // The pages run the domains through their index and the HTTP layer's auth; no SQL of their own.
  admin: { folders: ['cli'], packages: [/^kysely/, /^better-sqlite3/, /^pg$/] },
  ...Object.fromEntries(
    DOMAINS.map((d) => [
      d,
      {
        folders: ['http', 'admin', 'cli', 'mail', ...DOMAINS.filter((o) => o !== d)],
        packages: [/^fastify/, /^@fastify\//],
      },
    ]),
  ),
};

function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*import\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm)].map((m) => ({
    spec: m[2] ?? '',
    typeOnly: Boolean(m[1]),
  }));
}

test('every source file imports only what its layer may', () => {
  const problems: string[] = [];
  for (const file of files(src)) {
    const rules = FORBIDDEN[layerOf(file)];
    if (!rules) continue;
    for (const { spec, typeOnly } of imports(file)) {
      if (spec.startsWith('.')) {
        const target = layerOf(join(file, '..', spec));
        if (rules.folders.includes(target)) problems.push(`${relative(src, file)} imports ${spec}`);
        // Domains use another folder's internals only through its index.
        if (DOMAINS.includes(target) && target !== layerOf(file) && !spec.endsWith('/index.js'))
          problems.push(`${relative(src, file)} reaches into ${spec}`);
      } else if (!typeOnly && rules.packages.some((p) => p.test(spec))) {
        problems.push(`${relative(src, file)} imports package ${spec}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('in a domain, only *-repo.ts files run Kysely queries', () => {
  const offenders = files(src)
    .filter((f) => DOMAINS.includes(layerOf(f)) && !f.endsWith('-repo.ts'))
    .filter((f) => imports(f).some((i) => i.spec === 'kysely' && !i.typeOnly));
  assert.deepEqual(
    offenders.map((f) => relative(src, f)),
    [],
  );
});

/**
 * Each domain owns its tables (docs/architecture.md, "Domains own their tables"): the stores
 * know accounts only through the user service's directory (core/user-directory.ts). Shared
 * tables of storage/ (permissions, settings, the mail queue) are no domain's.
 */
const TABLES: Record<string, readonly string[]> = {
  users: [
    'users',
    'sessions',
    'user_tokens',
    'throttle_counts',
    'totp_factors',
    'recovery_codes',
    'provider_links',
    'provider_flows',
    'passkeys',
    'passkey_challenges',
  ],
  datastore: ['datastore_items', 'datastore_counts'],
  filestore: ['file_entries'],
};

/** The tables a source file names in a query: in Kysely's builders, in joins, and in raw SQL. */
function tablesNamed(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const named = new Set<string>();
  for (const m of text.matchAll(
    /\b(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|\w*[jJ]oin)\(\s*'([a-z_]+)/g,
  ))
    named.add(m[1] ?? '');
  for (const m of text.matchAll(/\b(?:from|join|into|update)\s+([a-z_]+)\b/gi)) named.add(m[1]?.toLowerCase() ?? '');
  for (const m of text.matchAll(/\b([a-z_]+)\.[a-z_]+\b/g)) named.add(m[1] ?? '');
  return named;
}

test('a domain queries only its own tables', () => {
  const problems: string[] = [];
  for (const file of files(src)) {
    const domain = layerOf(file);
    if (!DOMAINS.includes(domain)) continue;
    const named = tablesNamed(file);
    for (const [owner, tables] of Object.entries(TABLES)) {
      if (owner === domain) continue;
      for (const table of tables) if (named.has(table)) problems.push(`${relative(src, file)} touches ${table}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the table of domains covers every table of the schema', () => {
  const schema = ['schema.ts', 'datastore-schema.ts', 'filestore-schema.ts']
    .map((f) => readFileSync(join(src, 'storage', f), 'utf8'))
    .join('\n');
  const declared = [...schema.matchAll(/^\s+([a-z_]+): [A-Z]\w*Table;$/gm)].map((m) => m[1] ?? '');
  // storage/ keeps these itself: no domain owns them (webhooks: realtime/webhooks.ts, jobs: core/jobs.ts, by ports).
  const shared = ['permissions', 'settings', 'jobs', 'webhooks'];
  assert.deepEqual(
    declared.filter((t) => !shared.includes(t) && !Object.values(TABLES).flat().includes(t)),
    [],
  );
  assert.ok(declared.includes('datastore_items') && declared.includes('users'), `read the schema: ${declared}`);
});
