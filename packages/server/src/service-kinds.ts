import type { FastifyInstance } from 'fastify';
import { formatBytes } from '@roost/forms';
import type { Migration } from 'kysely';
import type { PermissionChange, Principal } from './core/permissions.js';
import type { ServiceKind } from './core/service-kind.js';
import type { AdminPages } from './admin/pages/admin-routes.js';
import { itemView } from './http/protocol/datastore-protocol.js';
import { fileStoreDocPaths } from './http/protocol/filestore-docs.js';
import { uploadDocPaths } from './http/protocol/upload-docs.js';
import { collectionDocPaths } from './http/protocol/collection-docs.js';
import { entryView } from './http/protocol/filestore-protocol.js';
import { profileView } from './http/protocol/user-protocol.js';
import { registerDataStoreRoutes } from './http/routes/datastore-routes.js';
import { registerFileStoreRoutes } from './http/routes/filestore-routes.js';
import { registerUploadRoutes } from './http/routes/upload-routes.js';
import { registerUserRoutes } from './http/routes/user-routes.js';
import { registerCollectionRoutes } from './http/routes/collection-routes.js';
import { accountFamily } from './realtime/families/account-family.js';
import { fileFamily } from './realtime/families/file-family.js';
import { itemFamily } from './realtime/families/item-family.js';
import { recordFamily } from './realtime/families/record-family.js';
import type { KindContext } from './services.js';
import { programCaller, type Caller, type UserQuery } from './users/index.js';

/**
 * The service kinds of this server, listed once (issue 38, item 1; the interface is
 * core/service-kind.ts). An embedding program or a test adds kinds of its own through
 * `RoostOverrides.kinds` (services.ts); test/fixtures/counter-store/ is one, built from its
 * descriptor alone.
 */
export type RoostServiceKind = ServiceKind<KindContext, FastifyInstance, AdminPages, Caller, Migration>;

/** The permission operations every service has, as the permission pages call them. */
interface PermissionOps<C> {
  permissionEntries(caller: C): Promise<Array<{ permission: string; groups: readonly string[] }>>;
  changePermissions(caller: C, input: { permissions: PermissionChange[] }): Promise<unknown>;
}

/** One store (or the user service) as a permission target, whatever caller its operations take. */
function target<C>(name: string, label: string, ops: PermissionOps<C>, as: (caller: Caller) => C) {
  return {
    name,
    label,
    entries: (caller: Caller) => ops.permissionEntries(as(caller)),
    change: async (caller: Caller, permissions: PermissionChange[]) =>
      void (await ops.changePermissions(as(caller), { permissions })),
  };
}

/** The configured stores of a registry as permission targets, in the configuration's order. */
function storeTargets<S extends PermissionOps<Principal>>(
  registry: { names: readonly string[]; get(name: string): S | undefined },
  label: string,
) {
  return registry.names.flatMap((name) => {
    const store = registry.get(name);
    return store ? [target(name, label, store, (caller) => caller.principal)] : [];
  });
}

/** A figure's words in its number: `counted(1, 'item', 'items')` is 'item'. */
const counted = (n: number, one: string, many: string) => (n === 1 ? one : many);

const usersKind: RoostServiceKind = {
  kind: 'users',
  tables: ['users', 'sessions', 'user_tokens', 'throttle_counts', 'totp_factors', 'recovery_codes'],
  migrations: {},
  services: (s) => [target('users', 'user service', s.users, (caller) => caller)],
  routes: async (app, s) =>
    void (await app.register(registerUserRoutes, { users: s.users, config: s.config, settings: s.settings })),
  nav: [
    { href: '/admin/users', label: 'Users' },
    { href: '/admin/signups', label: 'Sign-ups' },
  ],
  async dashboard(s, admin) {
    const count = async (search: UserQuery) => (await s.users.list(admin, { ...search, size: 0 })).total;
    const [users, pending, disabled] = await Promise.all([
      count({}),
      count({ pending: true }),
      count({ active: false }),
    ]);
    return {
      tiles: [
        { href: '/admin/users', value: users, label: counted(users, 'account', 'accounts') },
        {
          href: '/admin/signups',
          value: pending,
          label: counted(pending, 'sign-up waits for review', 'sign-ups wait for review'),
        },
        {
          href: '/admin/users?state=disabled',
          value: disabled,
          label: counted(disabled, 'disabled account', 'disabled accounts'),
        },
      ],
      facts: [],
    };
  },
  // Live events and webhooks carry the account as `profile` answers it (http/protocol/user-protocol.ts).
  events: (s) => [
    accountFamily(
      (id) => s.users.getUser(programCaller('live changes'), { identity: id }).catch(() => null),
      profileView,
    ),
  ],
};

const dataStoreKind: RoostServiceKind = {
  kind: 'datastore',
  tables: ['datastore_items', 'datastore_counts'],
  migrations: {},
  services: (s) => storeTargets(s.dataStores, 'data store'),
  routes: async (app, s) =>
    void (await app.register(registerDataStoreRoutes, { dataStores: s.dataStores, users: s.users, config: s.config })),
  nav: [{ href: '/admin/data', label: 'Data stores' }],
  events: (s) => [itemFamily(s.dataStores, itemView)],
  async dashboard(s, admin) {
    const stores = s.dataStores.names.flatMap((name) => s.dataStores.get(name) ?? []);
    const usage = await Promise.all(stores.map((store) => store.usage(admin.principal)));
    const items = usage.reduce((n, u) => n + u.items, 0);
    return {
      tiles: [
        { href: '/admin/data', value: stores.length, label: counted(stores.length, 'data store', 'data stores') },
      ],
      facts: [['Data stores', `${items} ${counted(items, 'item', 'items')}`]],
    };
  },
};

const fileStoreKind: RoostServiceKind = {
  kind: 'filestore',
  tables: ['file_entries'],
  migrations: {},
  services: (s) => storeTargets(s.fileStores, 'file store'),
  routes: async (app, s) => {
    const options = { fileStores: s.fileStores, users: s.users, config: s.config };
    await app.register(registerFileStoreRoutes, options);
    // Resumable uploads (tus) into every store, in a plugin of their own (bodies left to the library).
    await app.register(registerUploadRoutes, options);
  },
  docPaths: (s) => ({
    ...fileStoreDocPaths(s.fileStores.names.map((name) => ({ name, direct: s.fileStores.get(name)?.options.direct }))),
    ...uploadDocPaths(s.fileStores.names.filter((name) => s.fileStores.get(name)?.uploads)),
  }),
  nav: [{ href: '/admin/files', label: 'File stores' }],
  events: (s) => [fileFamily(s.fileStores, entryView)],
  async dashboard(s, admin) {
    const stores = s.fileStores.names.flatMap((name) => s.fileStores.get(name) ?? []);
    const usage = await Promise.all(stores.map((store) => store.usage(admin.principal)));
    const files = usage.reduce((n, u) => n + u.files, 0);
    const bytes = usage.reduce((n, u) => n + u.bytes, 0);
    const { blobs } = s.config;
    const where =
      blobs.kind === 's3' ? `S3 bucket ${blobs.bucket}` : `the directory ${blobs.dir ?? `${s.config.dataDir}/blobs`}`;
    return {
      tiles: [
        { href: '/admin/files', value: stores.length, label: counted(stores.length, 'file store', 'file stores') },
      ],
      facts: [['File stores', `${files} ${counted(files, 'file', 'files')}, ${formatBytes(bytes)} in ${where}`]],
    };
  },
  async ready(s) {
    const checks = await Promise.allSettled(s.blobs.all().map((blobs) => blobs.check()));
    const failed = checks.find((check) => check.status === 'rejected');
    if (!failed) return [];
    s.log.warn({ err: failed.reason }, 'not ready: a blob store cannot be reached');
    return ['a blob store cannot be reached'];
  },
};

const collectionsKind: RoostServiceKind = {
  kind: 'collections',
  tables: ['collections', 'collection_history'],
  migrations: {},
  // Records are guarded by each collection's rules (collections/collection-rules.ts), not by permission entries.
  services: () => [],
  routes: async (app, s) =>
    void (await app.register(registerCollectionRoutes, {
      collections: s.collections,
      users: s.users,
      config: s.config,
    })),
  // Each collection's routes with its own schema, read anew for every /openapi.json.
  docPaths: (s) =>
    collectionDocPaths(
      s.collections.names().flatMap((name) => {
        const state = s.collections.state(name);
        return state ? [{ name, schema: state.schema }] : [];
      }),
    ),
  // Its pages need uploads (records' files, imports): registered as routes, as the store pages are (admin/index.ts).
  nav: [{ href: '/admin/collections', label: 'Collections' }],
  // Live queries and webhooks of records: the record as the collections' API answers it (collections/record-ops.ts).
  events: (s) => [recordFamily(s.collections)],
  async dashboard(s, admin) {
    const all = await s.collections.collections(admin.principal);
    const records = all.reduce((n, c) => n + c.records, 0);
    const text = [
      `${all.length} ${counted(all.length, 'collection', 'collections')}`,
      `${records} ${counted(records, 'record', 'records')}`,
    ].join(', ');
    return { tiles: [], facts: all.length ? [['Collections', text]] : [] };
  },
};

export const SERVICE_KINDS: readonly RoostServiceKind[] = [usersKind, dataStoreKind, fileStoreKind, collectionsKind];
