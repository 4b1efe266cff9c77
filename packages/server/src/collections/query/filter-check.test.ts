import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isRoostError } from '../../core/errors.js';
import { posts, resolve } from '../../../test/collections/collections-fixture.js';
import { prepareFilter } from './index.js';

/** The reason of the `invalid_filter` that checking `text` against posts throws. */
function refusal(text: string): string {
  try {
    prepareFilter(text, posts, resolve);
  } catch (err) {
    assert.ok(isRoostError(err), String(err));
    assert.equal(err.code, 'invalid_filter', text);
    assert.equal(err.fields[0]?.[0], 'filter');
    return err.fields[0]?.[1] ?? '';
  }
  assert.fail(`accepted: ${text}`);
}

test('filters that fit the fields are accepted', () => {
  for (const text of [
    'title = "x" && n > 2 && i <= -1 && flag = true && flag != null',
    'title ~ "road" || title !~ "x" || "abc" ~ title',
    'tags ?= "x" || tags ?!= "y" || tags ?~ "z" || tags ?> "a" || scores ?>= 2.5 || tags = null || scores != null',
    'address.city = "Oslo" && address.zip < 100 && address = null && items = null',
    'meta = null || meta.a = "x" || meta.a.b != 2 || meta.c = true || meta.d = null',
    'author.name = "Ada" && author.rank > 1 && author.org.title ~ "x" && author.tags ?= "t" && author.created > @now',
    'owner = @request.auth.id && reviewer = @request.auth.id && @request.auth.groups ?= "admins"',
    '@request.auth.groups ?= title && title = @request.auth.name && title = @request.body.title',
    'n = @request.body.n && @request.body.tags ?= "x" && tags ?= @request.body.title',
    'when >= @todayStart && when <= @todayEnd && created > @yesterday && updated < @tomorrow',
    'title = author.name && n = i && title != null && null = null && 1 = 1',
    'id = "x" && created = updated',
  ])
    prepareFilter(text, posts, resolve);
});

test('fields, operators and values that do not fit are refused with the field and the position', () => {
  const cases: [string, RegExp][] = [
    ['nope = 1', /unknown field nope in posts at character 1/],
    ['address.town = "x"', /unknown field address.town in posts at character 1/],
    ['title.x = "x"', /title is a text field: it has no member x/],
    ['n ~ "1"', /~ does not apply to n \(number\) at character 1/],
    ['flag > true', /> does not apply to flag \(boolean\)/],
    ['title = 1', /cannot compare title \(text\) with 1 \(number\) at character 9/],
    ['n = "1"', /cannot compare n \(number\) with "1" \(text\)/],
    ['title = n', /cannot compare title \(text\) with n \(number\)/],
    ['tags = "x"', /tags \(array of text\) is an array: compare its elements with \?=/],
    ['tags ?= 1', /cannot compare the elements \(text\) of tags \(array of text\) with 1 \(number\)/],
    ['tags ?= null', /\?= compares elements with a value, not with null/],
    ['title ?= "x"', /\?= needs an array .* not title \(text\)/],
    ['items ?= "x"', /\?= needs an array .* not items \(array of objects\)/],
    ['scores ?~ 1', /\?~ does not apply to the elements \(number\)/],
    ['address = "x"', /address \(object\) is an object/],
    ['n > null', /null can only be compared with = or !=, not >/],
    ['meta.a > 1', /a path into a json field can only be compared with = or !=/],
    ['meta.a = title', /a path into a json field is compared with values only/],
    ['meta.a = meta.b', /two paths into json fields cannot be compared/],
    ['owner.name = "x"', /owner names an account: relations to users cannot be followed, only compared as ids/],
    ['reviewer.name = "x"', /relations to users cannot be followed/],
    ['author.nope = "x"', /unknown field author.nope in authors/],
    ['author.org.title.x = "x"', /title is a text field: it has no member x/],
    ['@request.nope = 1', /unknown variable @request.nope/],
    ['@request.auth.groups = "x"', /is an array/],
    ['@request.body.nope = 1', /@request.body.nope: nope is not a field of posts/],
    ['@request.body.id = "x"', /id is not a field of posts/],
    ['@request.body.meta = 1', /@request.body.meta is a json field, which filters cannot compare/],
    ['created > 5', /cannot compare created \(text\) with 5 \(number\)/],
    [`meta.${'a'.repeat(64)} = 1`, /is not a field name \(at most 63 characters\)/],
  ];
  for (const [text, reason] of cases) assert.match(refusal(text), reason, text);
});

test('a path follows at most two relations', () => {
  const chain = {
    name: 'chain',
    fields: [{ ...posts.fields.find((f) => f.name === 'author')!, name: 'next', relation: 'chain' }],
  };
  const resolveChain = () => chain;
  prepareFilter('next.next.id = "x"', chain, resolveChain);
  assert.throws(() => prepareFilter('next.next.next.id = "x"', chain, resolveChain), /at most 2 relations/);
  assert.throws(
    () => prepareFilter('author.org.title = "x"', posts, (n) => (n === 'orgs' ? undefined : resolve(n))),
    /names the collection orgs, which does not exist/,
  );
});
