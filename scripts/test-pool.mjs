// The job pool of scripts/test.mjs: every test file of every pass, the typecheck, the lint and the
// Python suite are jobs of one queue, run `concurrency` at a time, the longest first. The passes
// used to run one after the other, each ending on its slowest files with a core idle, and the
// PostgreSQL pass waiting on the database with CPU to spare (CONTRIBUTING.md, "Test time").
// A job's output is kept and printed whole when it ends, so jobs that run together do not mix lines.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * @typedef {object} Job
 * @property {string} pass what the job belongs to, for the summary (`pass 1 (SQLite)`, `typecheck`)
 * @property {string} name its file, or what it runs
 * @property {string} command
 * @property {string[]} args
 * @property {{ cwd: string, env: NodeJS.ProcessEnv }} options
 * @property {number} weight its expected seconds: the queue starts the heaviest first
 * @property {(result: JobResult) => unknown} [afterwards] called when it ends (pass 4's set-up adds its jobs)
 */
/** @typedef {{ job: Job, status: number, output: string, seconds: number, started: number }} JobResult */

export function createPool(concurrency) {
  /** @type {Job[]} */
  const queue = [];
  /** @type {JobResult[]} */
  const results = [];
  let running = 0;
  let wake = () => {};

  function start(job) {
    running++;
    const started = Date.now();
    const child = spawn(job.command, job.args, { ...job.options, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const end = (status) => {
      const result = { job, status, output: Buffer.concat(chunks).toString('utf8'), started, seconds: 0 };
      result.seconds = (Date.now() - started) / 1000;
      results.push(result);
      const verdict = status === 0 ? 'ok' : `FAILED (exit ${status})`;
      process.stdout.write(
        `\n# ${job.pass}: ${job.name}, ${result.seconds.toFixed(1)} s, ${verdict}\n${result.output}`,
      );
      // It counts as running until what follows it is done (pass 4's set-up adds the pass's jobs).
      Promise.resolve(job.afterwards?.(result))
        .catch((err) => {
          results.push({
            job: { ...job, name: `${job.name}, afterwards` },
            status: 1,
            output: `${err}\n`,
            started,
            seconds: 0,
          });
        })
        .finally(() => {
          running--;
          wake();
        });
    };
    child.on('error', (err) => {
      chunks.push(Buffer.from(`${err.message}\n`));
      end(1);
    });
    child.on('close', (code, signal) => end(code ?? (signal ? 128 : 1)));
  }

  return {
    /** Jobs added to the queue, kept heaviest first. */
    add(...jobs) {
      queue.push(...jobs);
      queue.sort((a, b) => b.weight - a.weight);
      wake();
    },
    /** Resolves with every job's result once the queue is empty and nothing runs. */
    async drain() {
      for (;;) {
        while (running < concurrency && queue.length > 0) start(/** @type {Job} */ (queue.shift()));
        if (running === 0 && queue.length === 0) return results;
        await new Promise((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

/**
 * The seconds each (pass, file) took in the last run on this machine, kept under node_modules; where
 * none is known, a guess from the file's size (a bigger file has more tests), heavier for what
 * starts chromium or packs and installs a package.
 */
export function createTimes(file) {
  /** @type {Record<string, number>} */
  const known = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  return {
    weight(pass, name, bytes) {
      const seconds = known[`${pass}\t${name}`];
      if (seconds !== undefined) return seconds;
      const heavy = /browser|packed|docs\.test|cli\.test|scale\//.test(name) ? 4 : 1;
      return (bytes / 1000) * heavy;
    },
    save(results) {
      for (const { job, seconds } of results) known[`${job.pass}\t${job.name}`] = Math.round(seconds * 10) / 10;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(known, null, 1));
    },
  };
}
