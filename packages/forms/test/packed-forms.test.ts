import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  consumerProject,
  nodeIn,
  pack,
  repoPackage,
  tarballFiles,
  tscErrorsIn,
} from '../../server/test/helpers/packed.js';

/**
 * @roost/forms as another project installs it: `npm pack`, `npm install` of the tarball in a
 * fresh project, a plain `node` script rendering and processing a form, and `tsc --strict` on
 * the README's examples.
 */

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

describe('the packed @roost/forms', () => {
  let work: string;
  let app: string;
  let tarball: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'roost-packed-forms-'));
    tarball = await pack('forms', work);
    app = join(work, 'app');
    // Its dependencies (kysely, zod) and the examples' (better-sqlite3 and types) are linked from
    // this repository's install: the same registry packages, no download.
    await consumerProject(app, {
      '@roost/forms': `file:${tarball}`,
      kysely: repoPackage('kysely'),
      zod: repoPackage('zod'),
      'better-sqlite3': repoPackage('better-sqlite3'),
      '@types/better-sqlite3': repoPackage('@types/better-sqlite3'),
      '@types/node': repoPackage('@types/node'),
    });
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test('the tarball holds the built JavaScript, declarations and the license, no TypeScript sources', async () => {
    const files = await tarballFiles(tarball);
    for (const file of ['package.json', 'LICENSE', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts'])
      assert.ok(files.includes(file), file);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
    );
  });

  test('a plain node script renders a form, refuses a bad post and accepts a good one', async () => {
    await writeFile(
      join(app, 'main.js'),
      `import { HTMLForm, formRequestFromWeb } from '@roost/forms';
const fields = [
  { id: 'name', name: 'Name', required: true },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
];
const actions = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'send', method: 'processForm', name: 'Send' },
];
const headers = { 'content-type': 'application/x-www-form-urlencoded' };
const post = (body) => new Request('http://localhost/', { method: 'POST', headers, body });
const render = async (request) => {
  const form = new HTMLForm({ request: await formRequestFromWeb(request), fields, actions });
  let received = null;
  form.listenEvent('success', ({ data }) => { received = data; });
  const { html } = await form.process({ success_message: 'Thank you!' });
  return { html, received };
};
const empty = await render(new Request('http://localhost/'));
const bad = await render(post('send%24=Send&name=&email=nope'));
const good = await render(post('send%24=Send&name=Ada&email=ada%40example.com'));
console.log(JSON.stringify({
  inputs: (empty.html.match(/<input[^>]+name="(name|email)"/g) ?? []).length,
  badAccepted: bad.received !== null,
  badSaysWhy: (bad.html.match(/aria-invalid="true"/g) ?? []).length,
  good: good.received,
  thanked: good.html.includes('Thank you!'),
}));
`,
    );
    const { stdout } = await nodeIn(app, ['main.js']);
    assert.deepEqual(JSON.parse(stdout), {
      inputs: 2,
      badAccepted: false,
      badSaysWhy: 2,
      good: { name: 'Ada', email: 'ada@example.com' },
      thanked: true,
    });
  });

  test("tsc --strict passes on the README's examples against the package's declarations", async () => {
    assert.ok(examples.length >= 2, `${examples.length} TypeScript blocks in the README`);
    const dir = join(app, 'typed');
    await mkdir(dir, { recursive: true });
    for (const [i, block] of examples.entries())
      await writeFile(join(dir, `example-${i + 1}.mts`), `${block}\nexport {};\n`);
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2022', 'DOM'],
          types: ['node'],
        },
        include: ['*.mts'],
      }),
    );
    // A mistake beside them is still caught (the declarations are real, not `any`): its errors
    // are the only ones.
    await writeFile(
      join(dir, 'wrong.mts'),
      `import { HTMLForm } from '@roost/forms';\nnew HTMLForm({ fields: 42 });\n`,
    );
    const errors = await tscErrorsIn(dir);
    assert.ok(errors.length > 0, 'the mistake is caught');
    assert.deepEqual(
      errors.filter((line) => !line.startsWith('wrong.mts(')),
      [],
    );
  });
});
