// Typed results: a form built from a field list the compiler can see gives `validate` and its
// `process`/`success` listeners data typed from the fields. The type checks below run in
// `npm run typecheck` (a wrong type, or an `@ts-expect-error` that no longer errs, fails it);
// the same code then runs here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLForm, type FieldConf, type FormData, type UploadedFile } from '../src/index.js';

/** Compiles only when `value` has exactly the type `T`. */
type Exactly<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
const exactly = <A, B>(_proof: Exactly<A, B>) => {};

const signup = () =>
  new HTMLForm({
    fields: [
      { id: 'name', required: true },
      { id: 'age', datatype: 'number', required: true },
      { id: 'ratio', datatype: 'float' },
      { id: 'newsletter', datatype: 'checkbox' },
      {
        id: 'topics',
        datatype: 'checkbox',
        listItems: [
          { id: 'news', name: 'News' },
          { id: 'offers', name: 'Offers' },
        ],
      },
      {
        id: 'size',
        datatype: 'list',
        required: true,
        listItems: [
          { id: 1, name: 'S' },
          { id: 2, name: 'M' },
        ],
      },
      {
        id: 'contact',
        datatype: 'radio',
        listItems: [
          { id: 'mail', name: 'Mail' },
          { id: 'phone', name: 'Phone', fields: [{ id: 'phone', required: true }] },
        ],
      },
      { id: 'tags', datatype: 'lines' },
      { id: 'avatar', datatype: 'file' },
      { id: 'created', datatype: 'date', readonly: true },
      {
        id: 'home',
        datatype: 'group',
        fields: [
          { id: 'street', required: true },
          { id: 'zip', datatype: 'number' },
        ],
      },
      { id: 'others', datatype: 'repeat', fields: [{ id: 'street', required: true }] },
    ],
  });

type SignupFields = readonly [{ id: 'name'; required: true }, { id: 'age'; datatype: 'number'; required: true }];

test('validate: the data of a valid form is typed from its fields', async () => {
  const [ok, data, errors] = await signup().validate({
    name: 'Ada',
    age: '36',
    size: '2',
    tags: 'a\nb',
    'home.street': 'Main St',
  });
  assert.deepEqual(errors, []);
  assert.equal(ok, true);
  if (!ok) return;
  exactly<typeof data.name, string>(true);
  exactly<typeof data.age, number>(true);
  exactly<typeof data.ratio, number | null | undefined>(true);
  exactly<typeof data.newsletter, boolean | null | undefined>(true);
  exactly<typeof data.topics, ('news' | 'offers')[] | null | undefined>(true);
  exactly<typeof data.size, 1 | 2>(true);
  exactly<typeof data.contact, 'mail' | 'phone' | null | undefined>(true);
  exactly<typeof data.phone, string | null | undefined>(true);
  exactly<typeof data.tags, string[] | null | undefined>(true);
  exactly<typeof data.avatar, UploadedFile | null | undefined>(true);
  exactly<typeof data.home, { street: string; zip?: number | null } | null | undefined>(true);
  exactly<typeof data.others, { street: string }[] | null | undefined>(true);
  // @ts-expect-error a readonly field is never in the data
  data.created;
  // @ts-expect-error no such field
  data.nickname;
  assert.deepEqual(data, {
    name: 'Ada',
    age: 36,
    size: 2,
    newsletter: false,
    topics: [],
    tags: ['a', 'b'],
    home: { street: 'Main St' },
    others: [],
  });
});

test('process and success listeners get the same type, without a cast', async () => {
  const form = signup();
  const seen: number[] = [];
  form.listenEvent('process', ({ data }) => {
    seen.push(data.age + 1);
  });
  form.listenEvent('success', ({ data }) => {
    exactly<typeof data.name, string>(true);
    // @ts-expect-error a listener reading a field the form does not have fails the typecheck
    data.nickname;
  });
  await form.validate({ name: 'Ada', age: '41', size: '1', 'home.street': 'x' });
  assert.deepEqual(seen, [42]);
});

test('a field list the compiler cannot see through stays a record; failures carry the raw values', async () => {
  const fields: FieldConf[] = [{ id: 'age', datatype: 'number', required: true }];
  const [ok, data] = await new HTMLForm({ fields }).validate({ age: 'x' });
  exactly<typeof data, Record<string, unknown>>(true);
  assert.equal(ok, false);
  assert.deepEqual(data, { age: 'x' });
  exactly<FormData<SignupFields>, { name: string; age: number }>(true);
});

test('a field list written `as const` compiles, with list items, controlled fields and group fields', async () => {
  const fields = [
    { id: 'name', required: true },
    {
      id: 'size',
      datatype: 'list',
      required: true,
      listItems: [
        { id: 's', name: 'S' },
        { id: 'm', name: 'M', fields: [{ id: 'fit', datatype: 'number' }] },
      ],
      settings: { controlset: true },
    },
    { id: 'home', datatype: 'group', fields: [{ id: 'street', required: true }] },
    { id: 'rooms', datatype: 'repeat', fields: [{ id: 'no', datatype: 'number', required: true }] },
  ] as const;
  const [ok, data] = await new HTMLForm({ fields }).validate({ name: 'Ada', size: 'm', fit: '2', 'home.street': 'x' });
  assert.equal(ok, true);
  if (!ok) return;
  exactly<typeof data.size, 's' | 'm'>(true);
  exactly<typeof data.fit, number | null | undefined>(true);
  exactly<typeof data.home, { street: string } | null | undefined>(true);
  exactly<typeof data.rooms, { no: number }[] | null | undefined>(true);
  assert.deepEqual(data, { name: 'Ada', size: 'm', fit: 2, home: { street: 'x' }, rooms: [] });
});

test('with subsets, no field is sure to be there: a step-1 listener does not see step 2 as given', async () => {
  const form = new HTMLForm({
    fields: [
      { id: 'name', required: true },
      { id: 'age', datatype: 'number', required: true },
    ],
    subsets: { step1: { fields: ['name'] }, step2: { fields: ['age'] } },
  });
  form.listenEvent('success', ({ data }) => {
    exactly<typeof data.age, number | undefined>(true);
  });
  form.listenEvent('process', ({ data }) => {
    exactly<typeof data.name, string | undefined>(true);
  });
  await form.setup('step1');
  const [ok, data] = await form.validate({ name: 'Ada' });
  assert.deepEqual([ok, data], [true, { name: 'Ada' }]);
  if (ok) exactly<typeof data, { name?: string; age?: number }>(true);
});

test('a required field with a rule may be hidden, so its data is typed optional', async () => {
  const form = new HTMLForm({
    fields: [
      { id: 'kind', required: true },
      {
        id: 'company',
        required: true,
        rule: { effect: 'SHOW', condition: { scope: '#/properties/kind', schema: { const: 'business' } } },
      },
    ],
  });
  const [ok, data] = await form.validate({ kind: 'private' });
  assert.deepEqual([ok, data], [true, { kind: 'private' }]);
  if (ok) exactly<typeof data, { kind: string; company?: string | null }>(true);
});
