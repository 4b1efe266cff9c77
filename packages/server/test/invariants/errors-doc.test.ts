import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commonErrors } from '../../src/core/errors.js';
import { userErrors } from '../../src/users/user-errors.js';
import { SIGNIN_METHODS } from '../../src/users/signin-methods/index.js';
import { dataStoreErrors } from '../../src/datastore/datastore-errors.js';
import { fileStoreErrors } from '../../src/filestore/filestore-errors.js';
import { thumbnailErrors } from '../../src/filestore/thumbnails/thumbnail-errors.js';
import { directErrors } from '../../src/filestore/direct-errors.js';
import { realtimeErrors } from '../../src/realtime/realtime-errors.js';
import { collectionErrors } from '../../src/collections/collections-errors.js';
import { queryErrors } from '../../src/collections/query/query-errors.js';
import { hookErrors } from '../../src/extend/hooks.js';
import { routeErrors } from '../../src/extend/routes.js';
import { keyErrors } from '../../src/keys/key-errors.js';
import { idpErrors } from '../../src/identity-provider/idp-errors.js';
import { databaseErrors } from '../../src/storage/retry.js';

/** docs/errors.md lists every error code the server can answer, and no code it cannot. */
const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Set([...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]));

test('every registered error code is documented', () => {
  const codes = [
    ...Object.keys(commonErrors.codes),
    ...Object.keys(userErrors.codes),
    ...SIGNIN_METHODS.flatMap((m) => Object.keys(m.errors.codes)),
    ...Object.keys(dataStoreErrors.codes),
    ...Object.keys(fileStoreErrors.codes),
    ...Object.keys(thumbnailErrors.codes),
    ...Object.keys(directErrors.codes),
    ...Object.keys(realtimeErrors.codes),
    ...Object.keys(collectionErrors.codes),
    ...Object.keys(queryErrors.codes),
    ...Object.keys(hookErrors.codes),
    'refused',
    ...Object.keys(routeErrors.codes),
    ...Object.keys(keyErrors.codes),
    ...Object.keys(idpErrors.codes),
    ...Object.keys(databaseErrors.codes),
  ];
  assert.deepEqual(
    codes.filter((c) => !documented.has(c)),
    [],
  );
});

test('the codes raised by the pages are documented', () => {
  const dir = new URL('../../src/admin/', import.meta.url).pathname;
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'));
  const pages = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  const raised = [...pages.matchAll(/RoostError\('[a-z_]+', '([a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(raised.length >= 3, `found only ${raised.length} codes in the pages`);
  assert.deepEqual(
    raised.filter((c) => c && !documented.has(c)),
    [],
  );
});

test('the codes raised by the HTTP layer are documented', () => {
  // Every file of src/http, not a list: a new route file's codes (tus-uploads.ts's TUS_CODES) are counted too.
  const dir = new URL('../../src/http/', import.meta.url).pathname;
  const http = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  const raised = [
    ...http.matchAll(/code: '([a-z_]+)'|RoostError\('[a-z_]+', '([a-z_]+)'|failureBody\('([a-z_]+)'/g),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
  assert.ok(raised.length >= 5, `found only ${raised.length} codes in the HTTP layer`);
  assert.deepEqual(
    raised.filter((c) => c && !documented.has(c)),
    [],
  );
});
