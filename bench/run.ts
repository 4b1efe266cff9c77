/**
 * `npm run bench [suite...]`: runs every `bench/suite-<name>.ts` (or the named ones) in turn.
 * Each suite measures its own baseline in the same run and writes its section of
 * bench/RESULTS.md.
 */
import { readdirSync } from 'node:fs';
import { here } from './lib.js';

const available = readdirSync(here).filter((f) => /^suite-.+\.ts$/.test(f)).map((f) => f.slice(6, -3)).sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n## ${name}\n`);
  const suite = (await import(`./suite-${name}.ts`)) as { run(): Promise<void> };
  await suite.run();
}
