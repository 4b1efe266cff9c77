import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/core/config.js';

/**
 * The distribution files (issue 42, item 7; docs/operations.md, "Deploying (container, systemd)"):
 * the Dockerfile, .dockerignore, compose.yaml and deploy/roost.service say what the code does.
 * The image's build and run are not here: no base image can be pulled on this machine (the
 * operations guide says how it was built with podman from a local base); what is checked is what
 * can go stale: what the Dockerfile copies exists, its command is the README's `npm start`, it
 * runs as a user of its own with a health check and a data volume; every ROOST_* variable the
 * files set is one Roost reads; the unit passes `systemd-analyze verify` and waits longer than
 * the shutdown's grace period.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The README's start command (the root's `npm start`), as words. */
const START = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.split(' ');
/** The variables core/config.ts reads (its `ENV_KEYS`), and the one that names the file. */
const ENV_READ = new Set([
  ...[...read('packages/server/src/core/config.ts').matchAll(/^ {2}(ROOST_[A-Z_]+): \(c, v\)/gm)].map((m) => m[1]!),
  'ROOST_CONFIG',
]);
const GRACE = parseConfig({}).shutdownGraceSeconds;

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments left out. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

describe('the distribution files', () => {
  const dockerfile = instructions(read('Dockerfile'));
  const stages = dockerfile.reduce<Instruction[][]>((all, i) => {
    if (i.keyword === 'FROM') all.push([]);
    all.at(-1)?.push(i);
    return all;
  }, []);
  const final = stages.at(-1) ?? [];

  test('the Dockerfile: two stages; what it copies from the checkout exists and is not ignored', () => {
    assert.ok(stages.length >= 2, 'a build stage and the image');
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const copied = dockerfile
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    assert.ok(copied.length >= 5, copied.join(' '));
    for (const source of copied) {
      assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: no such file in the checkout`);
      assert.ok(!ignored.includes(source), `COPY ${source}, which .dockerignore leaves out`);
    }
    for (const needed of ['.git', '**/node_modules', 'data']) assert.ok(ignored.includes(needed), needed);
  });

  test("the image: the README's start command, a user of its own, a health check on /health, a data volume", () => {
    const one = (keyword: string) => final.filter((i) => i.keyword === keyword).at(-1)?.args ?? '';
    assert.deepEqual(JSON.parse(one('CMD')), START);
    const user = one('USER');
    assert.ok(user !== '' && user !== 'root' && user !== '0', `USER ${user}`);
    assert.match(one('HEALTHCHECK'), /CMD .*\/health/);
    assert.equal(one('STOPSIGNAL'), 'SIGTERM');
    const env = final
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    const dataDir = /ROOST_DATA_DIR=(\S+)/.exec(env)?.[1];
    assert.ok(dataDir, 'ROOST_DATA_DIR is set');
    assert.deepEqual(JSON.parse(one('VOLUME')), [dataDir]);
    assert.match(env, /ROOST_HOST=0\.0\.0\.0/, 'reachable from outside the container');
    for (const name of env.match(/ROOST_[A-Z_]+/g) ?? []) assert.ok(ENV_READ.has(name), `${name} is not read`);
    // The production install keeps tsx (the sources run through it) and drops the dev dependencies.
    assert.match(dockerfile.map((i) => i.args).join('\n'), /npm prune --omit=dev/);
    const root = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    assert.ok(root.dependencies.tsx, 'tsx is a production dependency');
  });

  test('compose.yaml: Roost with PostgreSQL and Redis, variables Roost reads, a stop longer than the grace', () => {
    const compose = read('compose.yaml');
    for (const service of ['roost', 'postgres', 'redis']) assert.match(compose, new RegExp(`^ {2}${service}:$`, 'm'));
    const set = [...compose.matchAll(/^ {6}(ROOST_[A-Z_]+):/gm)].map((m) => m[1]!);
    assert.ok(set.includes('ROOST_DATABASE_URL') && set.includes('ROOST_REDIS_URL'), set.join(' '));
    for (const name of set) assert.ok(ENV_READ.has(name), `${name} is not read by core/config.ts`);
    const grace = Number(/stop_grace_period: (\d+)s/.exec(compose)?.[1]);
    assert.ok(grace > GRACE, `stop_grace_period ${grace} s against shutdownGraceSeconds ${GRACE}`);
  });

  test('deploy/roost.service: verified by systemd, restarts on failure, SIGTERM, waits longer than the grace', {
    skip: existsSync('/usr/bin/systemd-analyze') ? false : 'systemd-analyze is not installed',
  }, () => {
    const unit = read('deploy/roost.service');
    const verify = spawnSync('systemd-analyze', ['verify', join(ROOT, 'deploy/roost.service')], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stderr);
    assert.equal(verify.stderr.trim(), '', 'no warning');
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];
    assert.deepEqual(value('ExecStart')?.split(' '), ['/usr/bin/node', ...START.slice(1)]);
    assert.ok(!['root', '0', undefined].includes(value('User')), `User=${value('User')}`);
    assert.equal(value('Restart'), 'on-failure');
    assert.equal(value('KillSignal'), 'SIGTERM');
    assert.ok(Number.parseInt(value('TimeoutStopSec') ?? '0', 10) > GRACE);
    for (const name of unit.match(/ROOST_[A-Z_]+(?==)/g) ?? []) assert.ok(ENV_READ.has(name), name);
    for (const hardening of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes'])
      assert.match(unit, new RegExp(`^${hardening}$`, 'm'));
  });
});
