/**
 * `npm run bench [suite...]`: runs every `bench/suite-<name>.ts` (or the named ones) in turn.
 * Each suite measures its own baselines in the same run, writes its section of
 * bench/RESULTS.md and keeps its figures in bench/results.json; the summary at the top of
 * RESULTS.md is then rebuilt from those figures.
 */
import { readdirSync } from 'node:fs';
import { here } from './lib.js';
import { writeSummary } from './summary.js';

const available = readdirSync(here)
  .filter((f) => /^suite-.+\.ts$/.test(f))
  .map((f) => f.slice(6, -3))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
const began = Date.now();
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n## ${name}\n`);
  const suiteBegan = Date.now();
  const suite = (await import(`./suite-${name}.ts`)) as { run(): Promise<void> };
  await suite.run();
  console.log(`(${name}: ${((Date.now() - suiteBegan) / 60_000).toFixed(1)} min)`);
}
writeSummary();
console.log(`\nbench done in ${((Date.now() - began) / 60_000).toFixed(1)} min`);
