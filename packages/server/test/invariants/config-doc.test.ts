import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configSchema } from '../../src/core/config.js';

/** docs/configuration.md names every configuration key (as `key` or `section.key`). */
const doc = readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');

/** The object schema inside defaults, prefaults, records and refinements. */
function objectOf(schema: z.ZodType): z.ZodObject | null {
  let s: z.ZodType = schema;
  for (let i = 0; i < 10; i++) {
    if (s instanceof z.ZodObject) return s;
    if (s instanceof z.ZodRecord) s = s.valueType as z.ZodType;
    else if ('unwrap' in s && typeof s.unwrap === 'function') s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else if (s.def && 'innerType' in s.def) s = s.def.innerType as z.ZodType;
    else return null;
  }
  return null;
}

function keys(schema: z.ZodType, prefix = ''): string[] {
  const object = objectOf(schema);
  if (!object) return [];
  return Object.entries(object.shape).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const nested = keys(value as z.ZodType, path);
    return nested.length ? [path, ...nested] : [path];
  });
}

test('every configuration key is documented', () => {
  const all = keys(configSchema);
  assert.ok(all.length > 20, `only ${all.length} keys found`);
  const missing = all.filter((k) => !doc.includes(`\`${k}\``) && !doc.includes(`\`${k.split('.').at(-1)}\``));
  assert.deepEqual(missing, []);
});
