// Which test file runs in which pass of scripts/test.mjs (CONTRIBUTING.md, "Tests: what runs where").
// Every test file runs in pass 1 (SQLite, the machine's Node). A file listed here with
// - 'storage' runs again in pass 2 (PostgreSQL, file contents on S3): it stores or reads what a
//   database or a blob store keeps, so its answers may differ there (types, constraints, ordering,
//   transactions, the change feed, several processes over one database);
// - 'runtime' runs again in pass 4 (Node 24): it touches what changes between Node versions
//   (native addons, streams, crypto, fetch/undici, child processes and signals, packing, the HTTP
//   parser);
// - nothing (`[]`): pass 1 only: pages' HTML, chromium, HTTP parsing and validation before storage,
//   the client bundle, the form library, documents, invariants, pure units.
// A test file missing here stops `npm test` before any pass (and fails
// packages/server/test/invariants/test-passes.test.ts): decide where it runs, and say why below.

/** @type {Record<string, ReadonlyArray<'storage' | 'runtime'>>} */
export const testPasses = {
  // The TypeScript connector: in chromium once; in Node over fetch (streams, SSE) on Node 24 too.
  'packages/client/test/browser-anonymous-id-token.test.ts': [],
  'packages/client/test/browser-core.test.ts': [],
  'packages/client/test/browser-passkeys.test.ts': [],
  'packages/client/test/browser-react.test.ts': [],
  'packages/client/test/browser-vue.test.ts': [],
  // Collections through the connector: fetch with JSON bodies, and live queries over SSE.
  'packages/client/test/collections.test.ts': ['runtime'],
  'packages/client/test/datastore.test.ts': ['runtime'],
  // Direct uploads through the connector: its own S3 bucket in pass 1 already; fetch of Blobs to presigned URLs.
  'packages/client/test/direct-upload.test.ts': ['runtime'],
  'packages/client/test/docs.test.ts': [],
  'packages/client/test/errors.test.ts': ['runtime'],
  'packages/client/test/filestore.test.ts': ['runtime'],
  'packages/client/test/packed-client.test.ts': [],
  'packages/client/test/realtime.test.ts': ['runtime'],
  // Resumable uploads through tus-js-client (its Node HTTP stack).
  'packages/client/test/resumable.test.ts': ['runtime'],
  'packages/client/test/users.test.ts': [],

  // The form library: no server storage of its own (content.test.ts and object-form.test.ts reach
  // PostgreSQL themselves in pass 1 when ROOST_TEST_DATABASE_URL is set), pure JavaScript.
  'packages/forms/test/accessibility.test.ts': [],
  'packages/forms/test/browser-repeats.test.ts': [],
  'packages/forms/test/browser-validation.test.ts': [],
  'packages/forms/test/browser-wizard.test.ts': [],
  'packages/forms/test/browser.test.ts': [],
  'packages/forms/test/constraints.test.ts': [],
  'packages/forms/test/content.test.ts': [],
  'packages/forms/test/datatypes.test.ts': [],
  'packages/forms/test/events.test.ts': [],
  'packages/forms/test/form.test.ts': [],
  'packages/forms/test/groups.test.ts': [],
  'packages/forms/test/json-forms.test.ts': [],
  'packages/forms/test/json-schema.test.ts': [],
  'packages/forms/test/json-schema-property.test.ts': [],
  'packages/forms/test/object-form.test.ts': [],
  'packages/forms/test/options.test.ts': [],
  'packages/forms/test/packed-forms.test.ts': [],
  'packages/forms/test/process.test.ts': [],
  'packages/forms/test/readme.test.ts': [],
  'packages/forms/test/redirects.test.ts': [],
  'packages/forms/test/render.test.ts': [],
  'packages/forms/test/reorder.test.ts': [],
  'packages/forms/test/tool-workflow.test.ts': [],
  'packages/forms/test/typed-data.test.ts': [],
  'packages/forms/test/rules.test.ts': [],
  'packages/forms/test/browser-rules.test.ts': [],
  'packages/forms/test/live.test.ts': [],
  'packages/forms/test/browser-live.test.ts': [],
  'packages/forms/test/wizard.test.ts': [],

  // The collections' query language: pure units (the fuzz and plan tests against the databases are
  // under test/collections/).
  'packages/server/src/collections/query/filter-check.test.ts': [],
  'packages/server/src/collections/query/filter-match.test.ts': [],
  'packages/server/src/collections/query/filter-parser.test.ts': [],
  'packages/server/src/collections/query/query-docs.test.ts': [],
  // The server's units. database.test.ts loads better-sqlite3 and queries it (the native addon);
  // secret-box.test.ts is crypto; row-writes.test.ts writes rows on both databases.
  'packages/server/src/core/cache.test.ts': [],
  'packages/server/src/core/events.test.ts': [],
  'packages/server/src/core/grants.test.ts': [],
  'packages/server/src/core/permissions.test.ts': [],
  'packages/server/src/datastore/datastore-inputs.test.ts': [],
  'packages/server/src/filestore/file-paths.test.ts': [],
  'packages/server/src/filestore/thumbnails/thumb-spec.test.ts': [],
  'packages/server/src/realtime/realtime.test.ts': [],
  'packages/server/src/storage/database.test.ts': ['runtime'],
  'packages/server/src/storage/row-writes.test.ts': ['storage', 'runtime'],
  'packages/server/src/users/secret-box.test.ts': ['runtime'],
  // The presets' declarations, and Apple's client secret: an ES256 JWT (crypto).
  'packages/server/src/users/provider-presets.test.ts': ['runtime'],
  'packages/server/src/admin/pages/settings-secrets.test.ts': [],

  // Admin pages: HTML, access and CSRF checks before any storage; first-run and runtime settings
  // are stored.
  'packages/server/test/admin/admin-access.test.ts': [],
  'packages/server/test/admin/admin-input.test.ts': [],
  'packages/server/test/admin/admin-not-found.test.ts': [],
  'packages/server/test/admin/admin-pages.browser.test.ts': [],
  'packages/server/test/admin/jobs-pages.browser.test.ts': [],
  'packages/server/test/admin/backups-pages.browser.test.ts': [],
  'packages/server/test/admin/logs-pages.browser.test.ts': [],
  // The pages' reads of accounts go through the administrator's own permissions (stored entries).
  'packages/server/test/admin/admin-user-grants.test.ts': ['storage'],
  'packages/server/test/admin/first-run.test.ts': ['storage'],
  'packages/server/test/admin/settings-store.test.ts': ['storage'],
  // The admin lists (issue 42, item 6): sorts are the database's, the bulk delete's races are its transactions.
  'packages/server/test/admin/admin-lists.test.ts': ['storage'],
  // The settings page's rate limit and S3 keys: stored settings, read per request.
  'packages/server/test/admin/settings-limits.test.ts': ['storage'],
  'packages/server/test/admin/admin-sizes.browser.test.ts': [],

  // The roost command: its commands work on the configured database; it is child processes,
  // signals and standard streams.
  'packages/server/test/cli.test.ts': ['storage', 'runtime'],
  // Its database commands (account recovery, migrate, types): the database's, not Node's (the child
  // process, its streams and signals, and `user add`'s hash are cli.test.ts's, on Node 24 too).
  'packages/server/test/cli-users.test.ts': ['storage'],
  // Hooks (issue 40): before-hooks before the write, after-hooks' jobs stored in its transaction.
  'packages/server/test/extend/hooks-http.test.ts': ['storage'],
  // `roost serve` with a hooks/ folder, killed by a signal: a child process, and its database.
  'packages/server/test/extend/hooks-process.test.ts': ['storage', 'runtime'],
  // `roost dev`: file watching and child processes (the runtime's), on SQLite alone.
  'packages/server/test/extend/hooks-dev.test.ts': ['runtime'],
  // Its refusals (arguments, settings, a database or port it cannot use) end before any storage.
  'packages/server/test/cli-arguments.test.ts': [],

  // The collections' query language on a real record table: the SQL's answers are the database's own
  // (collations, JSON functions, NULL ordering, plans), so on both.
  'packages/server/test/collections/filter-fuzz.test.ts': ['storage'],
  'packages/server/test/collections/filter-injection.test.ts': ['storage'],
  'packages/server/test/collections/query-plan.test.ts': ['storage'],

  // The HTTP API.
  // Administrator-only calls of the embedding API refuse other callers before any storage.
  'packages/server/test/http/administrator-only-calls.test.ts': [],
  // The breached-password check asks a range API with fetch (undici) and refuses before anything is stored.
  'packages/server/test/http/breached-passwords.test.ts': ['runtime'],
  // The proof of work: challenges signed with a key in the database, spent once across parallel calls.
  'packages/server/test/http/proof-of-work.test.ts': ['storage'],
  // The new-device mail: the devices an account signed in from, kept in the database.
  'packages/server/test/http/new-device-mail.test.ts': ['storage'],
  // Trusted devices: their tokens in user_tokens, forgotten with the sessions.
  'packages/server/test/http/trusted-devices.test.ts': ['storage'],
  // Collections: records in tables of their own, JSON on SQLite and jsonb on PostgreSQL.
  'packages/server/test/http/collection-records.test.ts': ['storage'],
  'packages/server/test/http/collection-rules.test.ts': ['storage'],
  'packages/server/test/http/collection-relations.test.ts': ['storage'],
  // A tus upload into a collection's file field, then the record with its path (local blobs and S3 by moto).
  'packages/server/test/http/collection-file-resumable.test.ts': ['storage'],
  // Live queries of collections: rules and filters in memory against records of both databases,
  // events between two processes over the change feed (PostgreSQL only, skipped on SQLite).
  'packages/server/test/http/collection-live.test.ts': ['storage'],
  'packages/server/test/http/change-events.test.ts': ['storage'],
  'packages/server/test/http/client-bundle.test.ts': [],
  'packages/server/test/http/datastore-cache.test.ts': ['storage'],
  'packages/server/test/http/datastore-concurrency.test.ts': ['storage'],
  'packages/server/test/http/datastore-items.test.ts': ['storage'],
  'packages/server/test/http/datastore-list.test.ts': ['storage'],
  'packages/server/test/http/datastore-pages.test.ts': ['storage'],
  'packages/server/test/http/datastore-permissions.test.ts': ['storage'],
  // Validation answers before anything is read or stored.
  'packages/server/test/http/datastore-validation.test.ts': [],
  'packages/server/test/http/durability.test.ts': ['storage'],
  // Routes of an extension (issue 40): records and items written as the caller and as the system.
  'packages/server/test/http/extension-routes.test.ts': ['storage'],
  'packages/server/test/http/filestore-connectors.test.ts': ['storage'],
  'packages/server/test/http/filestore-download.test.ts': ['storage', 'runtime'],
  // Resumable uploads (tus): what the blob store keeps of a partial upload differs on S3 (moto there).
  'packages/server/test/http/filestore-resumable.test.ts': ['storage'],
  // Direct uploads and downloads (issue 41, item 2): S3 in both passes (its own bucket), presigned URLs over fetch.
  'packages/server/test/http/filestore-direct.test.ts': ['storage'],
  'packages/server/test/http/filestore-large.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/filestore-operations.test.ts': ['storage'],
  'packages/server/test/http/filestore-races.test.ts': ['storage'],
  'packages/server/test/http/filestore-security.test.ts': ['storage'],
  // Thumbnails: kept beside their image in the blob store (S3 in pass 2); sharp is a native addon.
  'packages/server/test/http/filestore-thumbnails.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/health.test.ts': ['storage'],
  // The job queue: its claim differs per database (FOR UPDATE SKIP LOCKED on PostgreSQL; two processes).
  'packages/server/test/http/jobs.test.ts': ['storage'],
  // The extensions' jobs (extend/jobs.ts): schedules and background jobs on the queue's table.
  'packages/server/test/http/extension-jobs.test.ts': ['storage'],
  'packages/server/test/http/mail-limits.test.ts': ['storage'],
  'packages/server/test/http/mail-queue.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/mail-signin.test.ts': ['storage'],
  // Anonymous accounts (issue 45): the cap's lock and count under a parallel burst differ per database.
  'packages/server/test/http/anonymous-users.test.ts': ['storage'],
  // ID tokens from apps (issue 45): links, used tokens and accounts stored; jose's JWKS fetch is undici's.
  'packages/server/test/http/id-token-signin.test.ts': ['storage', 'runtime'],
  // Codes by SMS (issue 45): one-use codes under parallel answers, throttle counts and the job queue's
  // retries differ per database.
  'packages/server/test/http/sms-codes.test.ts': ['storage'],
  // SAML single sign-on (issue 45): flows, replayed assertions, links and accounts stored; the XML
  // signatures and encryption are node:crypto's.
  'packages/server/test/http/saml-signin.test.ts': ['storage', 'runtime'],
  // Provider presets (issue 45): accounts and links made through a preset's declaration.
  'packages/server/test/http/provider-presets.test.ts': ['storage'],
  // SCIM 2.0 provisioning (issue 45): its tables, uniqueness under parallel creates and groups per database.
  'packages/server/test/http/scim.test.ts': ['storage'],
  'packages/server/test/http/metrics.test.ts': [],
  // The HTTP parser is Node's (llhttp), and changes with it.
  'packages/server/test/http/odd-headers.test.ts': ['runtime'],
  // The request log's lines and ids (HTTP headers as Node's parser takes them) and the records kept
  // in the database for the logs page.
  'packages/server/test/http/request-log.test.ts': ['storage', 'runtime'],
  // A request's id in the webhooks and jobs it causes: the jobs' table keeps it, fetch sends it.
  'packages/server/test/http/request-causes.test.ts': ['storage', 'runtime'],
  // Which routes open the audit log's actor frame: the route table, not what the databases keep.
  'packages/server/test/http/audit-routes.test.ts': [],
  // Every operation's answer against its schema: row types differ between the databases.
  'packages/server/test/http/openapi-answers.test.ts': ['storage'],
  'packages/server/test/http/openapi-types.test.ts': [],
  'packages/server/test/http/openapi.test.ts': [],
  // The wire contract of the original connectors, byte for byte, on both databases and Nodes.
  'packages/server/test/http/original-connectors.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/owner-only-existence.test.ts': ['storage'],
  // Stored hashes made anew at the configured cost, raced against a password change, on both databases.
  'packages/server/test/http/password-hashing.test.ts': ['storage'],
  // OpenID Connect: linked identities are stored; JOSE crypto and fetch to the provider.
  'packages/server/test/http/providers.test.ts': ['storage', 'runtime'],
  // Roost as an OpenID Connect provider: its models, keys and consents in the database; fetch and jose's crypto.
  'packages/server/test/http/identity-provider.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/realtime-access.test.ts': ['storage'],
  'packages/server/test/http/realtime-events.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/realtime-resume.test.ts': ['storage'],
  'packages/server/test/http/realtime.browser.test.ts': [],
  // The same statements for a known and an unknown identity: timed on both databases.
  'packages/server/test/http/reset-timing.test.ts': ['storage'],
  // A service kind from its descriptor alone: its own migration and table, on both databases.
  'packages/server/test/http/service-kind.test.ts': ['storage'],
  'packages/server/test/http/second-factor.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/session-cache.test.ts': ['storage'],
  'packages/server/test/http/session-revocation.test.ts': ['storage'],
  'packages/server/test/http/signin-ends-carried-session.test.ts': ['storage'],
  'packages/server/test/http/signin-throttle.test.ts': ['storage'],
  'packages/server/test/http/users-account.test.ts': ['storage'],
  'packages/server/test/http/users-admin.test.ts': ['storage'],
  'packages/server/test/http/users-errors.test.ts': ['storage'],
  'packages/server/test/http/users-lifecycle.test.ts': ['storage'],
  'packages/server/test/http/users-list-group.test.ts': ['storage'],
  'packages/server/test/http/users-security.test.ts': ['storage'],
  'packages/server/test/http/users-signup.test.ts': ['storage'],
  // A first request of each kind, on each database and each Node.
  'packages/server/test/http/users-smoke.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/users-smtp.test.ts': ['storage', 'runtime'],
  'packages/server/test/http/webhooks.test.ts': ['storage', 'runtime'],
  // The server's backups (issue 42, item 3): archives of either database, their runs in its table, S3 targets.
  'packages/server/test/http/backups.test.ts': ['storage'],

  // Invariants read the tree.
  'packages/server/test/invariants/config-doc.test.ts': [],
  'packages/server/test/invariants/docs-links.test.ts': [],
  'packages/server/test/invariants/permissions-doc.test.ts': [],
  'packages/server/test/invariants/cited-paths.test.ts': [],
  'packages/server/test/invariants/errors-doc.test.ts': [],
  'packages/server/test/invariants/event-seams.test.ts': [],
  'packages/server/test/invariants/file-size.test.ts': [],
  'packages/server/test/invariants/layering.test.ts': [],
  'packages/server/test/invariants/postgres-pass.test.ts': [],
  'packages/server/test/invariants/signin-plugins.test.ts': [],
  // The migrations' index in the order Kysely runs them (a merge of two branches can break it).
  'packages/server/test/invariants/migration-order.test.ts': [],
  'packages/server/test/invariants/test-passes.test.ts': [],

  // npm pack, and an install of the tarball that builds or fetches the native addon for the Node
  // that runs it.
  'packages/server/test/packed-server.test.ts': ['runtime'],
  // The Dockerfile, compose.yaml and the systemd unit against the code (issue 42, item 7): files only.
  'packages/server/test/distribution.test.ts': [],

  // Pages: HTML and chromium.
  // The collection pages: refusals, exports, imports in batches and the schema's history are read
  // and written on both databases; the browser walk once, over the same service.
  'packages/server/test/pages/collection-pages-input.test.ts': ['storage'],
  'packages/server/test/pages/collection-pages.browser.test.ts': [],
  'packages/server/test/pages/file-stores-page.test.ts': [],
  // The proof of work's widget in chromium under the pages' CSP (the check itself: http/proof-of-work.test.ts).
  'packages/server/test/pages/proof-of-work.browser.test.ts': [],
  // The trusted device's checkbox and cookie in chromium (the rules: http/trusted-devices.test.ts).
  'packages/server/test/pages/trusted-devices.browser.test.ts': [],
  // Uppy and tus-js-client against the tus endpoint in chromium (the protocol: http/filestore-resumable.test.ts).
  'packages/server/test/pages/resumable.browser.test.ts': [],
  // The admin's uploads by tus: progress, resume after a reload, the record form, no script (admin/upload-script.ts).
  'packages/server/test/pages/admin-uploads.browser.test.ts': [],
  'packages/server/test/pages/passkeys.browser.test.ts': [],
  'packages/server/test/pages/providers.browser.test.ts': [],
  'packages/server/test/pages/saml.browser.test.ts': [],
  'packages/server/test/pages/identity-provider.browser.test.ts': [],
  'packages/server/test/pages/second-factor.browser.test.ts': [],
  'packages/server/test/pages/sms-codes.browser.test.ts': [],
  'packages/server/test/pages/store-pages-access.test.ts': [],
  'packages/server/test/pages/store-pages-input.test.ts': [],
  'packages/server/test/pages/store-pages.browser.test.ts': [],
  'packages/server/test/pages/user-pages-input.test.ts': [],
  'packages/server/test/pages/user-pages.browser.test.ts': [],

  // Several processes over one database and one blob store: the deployment pass 2 stands for.
  // A collection made on one process, known to another over the change feed (PostgreSQL only).
  'packages/server/test/scale/collections-processes.test.ts': ['storage'],
  // A schedule's ticks once across two processes on PostgreSQL, one of them killed.
  'packages/server/test/scale/jobs-processes.test.ts': ['storage'],
  // Scheduled backups once a tick across two processes (issue 42, item 3): PostgreSQL only.
  'packages/server/test/scale/backups-processes.test.ts': ['storage'],
  'packages/server/test/scale/backup-restore.test.ts': ['storage', 'runtime'],
  'packages/server/test/scale/blob-stores.test.ts': ['storage', 'runtime'],
  // Redis, whatever the database: its child process on each Node.
  'packages/server/test/scale/rate-limit-redis.test.ts': ['runtime'],
  'packages/server/test/scale/realtime-processes.test.ts': ['storage'],
  'packages/server/test/scale/revocation-bound.test.ts': ['storage'],
  // Three `roost serve` behind HAProxy on one PostgreSQL, restarted one after another under load.
  'packages/server/test/scale/rolling-restart.test.ts': ['storage'],
  'packages/server/test/scale/session-coherence.test.ts': ['storage'],
  'packages/server/test/scale/sweep-blobs.test.ts': ['storage'],
  'packages/server/test/scale/two-processes.test.ts': ['storage', 'runtime'],
  'packages/server/test/scale/webhooks-processes.test.ts': ['storage'],
  // Resumable uploads (issue 41) against `roost serve` killed mid-PATCH and clients cut mid-body: local
  // blobs on SQLite, S3 (moto) on PostgreSQL, where two processes share one upload's lock.
  'packages/server/test/scale/upload-faults.test.ts': ['storage'],

  // Security: what reaches the database (hostile input, properties, the access table) on both;
  // the browser once; cookies, origins and signals on each Node.
  'packages/server/test/security/access-matrix.test.ts': ['storage'],
  'packages/server/test/security/browser.test.ts': [],
  'packages/server/test/security/crash-safety.test.ts': ['storage', 'runtime'],
  'packages/server/test/security/hostile-input.test.ts': ['storage'],
  // Multipart uploads cut at every byte: nothing stored, on local blobs and on S3 (where the 500 was).
  'packages/server/test/security/multipart-cuts.test.ts': ['storage'],
  'packages/server/test/security/property-datastore.test.ts': ['storage'],
  'packages/server/test/security/property-filestore.test.ts': ['storage'],
  'packages/server/test/security/property-users.test.ts': ['storage'],
  'packages/server/test/security/realtime-property.test.ts': ['storage'],
  'packages/server/test/security/secret-comparisons.test.ts': ['runtime'],
  'packages/server/test/security/shutdown.test.ts': ['runtime'],
  'packages/server/test/security/soak-accounting.test.ts': ['storage'],
  // Cookies and origins through fetch (undici), which changes with Node.
  'packages/server/test/security/web-security.test.ts': ['runtime'],
  'packages/server/test/shutdown.test.ts': ['storage', 'runtime'],

  // Units of the server's configuration and documents; embedding-doc runs the example as a child.
  'packages/server/test/unit/config.test.ts': [],
  'packages/server/test/unit/embedding-doc.test.ts': ['runtime'],
  'packages/server/test/unit/mail-body.test.ts': [],
  'packages/server/test/unit/prefix-end.test.ts': [],

  // Issue 42 (ops-keys): API keys and the audit log store and read what the database keeps; the
  // revocation across two processes runs on PostgreSQL only.
  'packages/server/test/http/api-keys.test.ts': ['storage'],
  'packages/server/src/core/audit.test.ts': [],
  'packages/server/test/admin/keys-audit-pages.test.ts': ['storage'],
  'packages/server/test/scale/key-revocation.test.ts': ['storage'],
  // The TypeScript connector with an API key: fetch with the Bearer header, on Node 24 too.
  'packages/client/test/api-keys.test.ts': ['runtime'],
  'packages/server/test/admin/impersonation.browser.test.ts': [],
  'packages/server/test/admin/impersonation.test.ts': ['storage'],
  // Issue 44, item 3: read replicas; a primary and a streaming replica of its own (PostgreSQL only).
  'packages/server/test/scale/replica-reads.test.ts': ['storage'],
  // Issue 44 (pgbouncer): serialization failures, deadlocks, cut connections and a read-only server,
  // made on purpose: PostgreSQL only (through PgBouncer too, pass 5).
  'packages/server/test/scale/cluster-failures.test.ts': ['storage'],
  // Issue 44, item 4: a failover under load (Patroni, etcd, PgBouncer, HAProxy, three processes):
  // PostgreSQL only, skipped where patroni and etcd are not installed.
  'packages/server/test/scale/failover.test.ts': ['storage'],
};

/**
 * Pass 5 (issue 44, docs/scaling.md "Behind PgBouncer"): these storage files once more on PostgreSQL
 * reached through PgBouncer in transaction mode, in `npm test`: one of each part that queries in its
 * own way (items, files, accounts, collections, the job queue, the change feed between processes,
 * the cluster's failures). `npm run test:pgbouncer` runs every storage file so (about as long as pass 2).
 */
export const pgBouncerFiles = [
  'packages/server/test/http/datastore-items.test.ts',
  'packages/server/test/http/filestore-operations.test.ts',
  'packages/server/test/http/users-lifecycle.test.ts',
  'packages/server/test/http/collection-records.test.ts',
  'packages/server/test/http/jobs.test.ts',
  'packages/server/test/http/change-events.test.ts',
  'packages/server/test/scale/realtime-processes.test.ts',
  'packages/server/test/scale/cluster-failures.test.ts',
];

const KINDS = new Set(['storage', 'runtime']);

/**
 * What is wrong with the list for these test files (paths relative to the repository root): a
 * file not listed, a listed file that is gone, an unknown pass. Empty when all is well.
 */
export function passProblems(files) {
  const problems = [];
  const present = new Set(files);
  for (const file of files) {
    if (!Object.hasOwn(testPasses, file))
      problems.push(
        `${file} is in no list of scripts/test-passes.mjs: add it there, with [] (pass 1 only), ` +
          `'storage' (again on PostgreSQL + S3) and/or 'runtime' (again on Node 24), and say why`,
      );
  }
  for (const [file, kinds] of Object.entries(testPasses)) {
    if (!present.has(file))
      problems.push(`${file} is listed in scripts/test-passes.mjs but does not exist: remove or rename it there`);
    for (const kind of kinds)
      if (!KINDS.has(kind)) problems.push(`${file}: unknown pass '${kind}' in scripts/test-passes.mjs`);
  }
  for (const file of pgBouncerFiles)
    if (!testPasses[file]?.includes('storage'))
      problems.push(`${file} is in pgBouncerFiles of scripts/test-passes.mjs but is not a 'storage' file there`);
  return problems;
}

/** The files of `files` listed with `kind`. */
export function filesFor(files, kind) {
  return files.filter((file) => testPasses[file]?.includes(kind));
}
