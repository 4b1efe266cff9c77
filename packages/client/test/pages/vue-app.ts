/**
 * A Vue page exercising every composable of `@roost/client/vue` against the Roost that serves
 * it (bundled by esbuild in browser-vue.test.ts). Render functions, no template compiler.
 */
import { createApp, defineComponent, h, ref, watch } from 'vue';
import { collections, datastore, filestore, realtime, users } from '../../src/index.js';
import { useDirectory, useItem, useList, useRecord, useRecords, useUpload, useUser } from '../../src/vue/index.js';
import type { Collections } from '../fixtures/roost-types.js';

const auth = users();
const data = datastore('data');
const files = filestore('files');
const notes = datastore('notes');
// One stream for every live view of the page (cookie mode, as the other connectors).
const live = realtime();
// The collections, typed by what `roost types` writes (fixtures/roost-types.ts); their own stream.
const posts = collections<Collections>().collection('posts');

const UserPanel = defineComponent(() => {
  const { user, loading, error, signin, signout, challenge, setup, recoveryCodes, enrol, secondStep } = useUser(auth);
  const identity = ref('');
  const password = ref('');
  const code = ref('');
  return () =>
    h('section', { 'aria-label': 'user' }, [
      h(
        'p',
        { 'data-testid': 'user' },
        loading.value ? 'loading' : user.value ? `signed in as ${user.value.name}` : 'anonymous',
      ),
      error.value &&
        h('p', { role: 'alert', 'data-testid': 'user-error' }, `${error.value.status} ${error.value.code}`),
      h('input', {
        'aria-label': 'identity',
        value: identity.value,
        onInput: (e: Event) => (identity.value = (e.target as HTMLInputElement).value),
      }),
      h('input', {
        'aria-label': 'password',
        type: 'password',
        value: password.value,
        onInput: (e: Event) => (password.value = (e.target as HTMLInputElement).value),
      }),
      h('button', { onClick: () => void signin(identity.value, password.value) }, 'Sign in'),
      h('button', { onClick: () => void signout() }, 'Sign out'),
      challenge.value &&
        h('div', { 'data-testid': 'user-challenge' }, [
          challenge.value.enrol ? 'set up an authenticator' : 'enter your code',
          challenge.value.enrol && h('button', { onClick: () => void enrol() }, 'Set up'),
          setup.value && h('code', { 'data-testid': 'user-setup' }, setup.value.secret),
          h('input', {
            'aria-label': 'code',
            value: code.value,
            onInput: (e: Event) => (code.value = (e.target as HTMLInputElement).value),
          }),
          h('button', { onClick: () => void secondStep({ code: code.value }) }, 'Verify'),
        ]),
      recoveryCodes.value && h('p', { 'data-testid': 'user-recovery' }, `${recoveryCodes.value.length} recovery codes`),
    ]);
});

/** A second view of the same connector: the session is shared. */
const Greeting = defineComponent(() => {
  const { user } = useUser(auth);
  return () =>
    h(
      'p',
      { 'data-testid': 'greeting' },
      user.value ? `Hello, ${user.value.realname || user.value.name}` : 'Hello, guest',
    );
});

const ItemPanel = defineComponent(() => {
  const key = ref('note-1');
  // The key is a ref: choosing another one loads its item.
  const { item, loading, error, save, remove } = useItem(data, key);
  const value = ref('');
  return () =>
    h('section', { 'aria-label': 'item' }, [
      h(
        'select',
        {
          'aria-label': 'key',
          value: key.value,
          onChange: (e: Event) => (key.value = (e.target as HTMLSelectElement).value),
        },
        [h('option', { value: 'note-1' }, 'note-1'), h('option', { value: 'note-2' }, 'note-2')],
      ),
      h(
        'p',
        { 'data-testid': 'item' },
        loading.value
          ? 'loading'
          : item.value
            ? `${item.value.key} = ${item.value.value} (${item.value.owner})`
            : `${key.value}: none`,
      ),
      error.value &&
        h('p', { role: 'alert', 'data-testid': 'item-error' }, `${error.value.status} ${error.value.code}`),
      h('input', {
        'aria-label': 'value',
        value: value.value,
        onInput: (e: Event) => (value.value = (e.target as HTMLInputElement).value),
      }),
      h('button', { onClick: () => void save(value.value) }, 'Save'),
      h('button', { onClick: () => void remove() }, 'Remove'),
    ]);
});

const ListPanel = defineComponent(() => {
  const owner = ref<string | undefined>(undefined);
  // A getter: changing the owner filter starts again at page 1.
  const { items, page, pages, total, loading, next, previous, refresh } = useList(data, () => ({
    size: 2,
    sort: 'key' as const,
    ...(owner.value ? { owner: owner.value } : {}),
  }));
  return () =>
    h('section', { 'aria-label': 'list' }, [
      h(
        'p',
        { 'data-testid': 'list' },
        loading.value
          ? 'loading'
          : `page ${page.value} of ${pages.value}, ${total.value} items: ${items.value.map((i) => i.key).join(', ')}`,
      ),
      h('button', { onClick: () => void previous() }, 'Previous'),
      h('button', { onClick: () => void next() }, 'Next'),
      h('button', { onClick: () => void refresh() }, 'Refresh'),
      h('button', { onClick: () => (owner.value = owner.value ? undefined : 'bob') }, 'Only bob'),
    ]);
});

/** Views that follow live changes: nothing here asks again, the stream brings the changes. */
const LiveViews = defineComponent(() => {
  const { item } = useItem(data, 'live-note', { live });
  const list = useList(notes, { size: 2, sort: 'key' }, { live });
  const dir = useDirectory(files, 'live', {}, { live });
  return () =>
    h('section', { 'aria-label': 'live' }, [
      h('p', { 'data-testid': 'live-item' }, item.value ? `live-note = ${item.value.value}` : 'live-note: none'),
      h(
        'p',
        { 'data-testid': 'live-list' },
        `page ${list.page.value} of ${list.pages.value}, ${list.total.value} notes: ` +
          list.items.value.map((i) => i.key).join(', '),
      ),
      h(
        'p',
        { 'data-testid': 'live-dir' },
        `${dir.total.value} entries: ${dir.items.value.map((e) => e.name).join(', ')}`,
      ),
    ]);
});

const LivePanel = defineComponent(() => {
  const on = ref(false);
  return () => (on.value ? h(LiveViews) : h('button', { onClick: () => (on.value = true) }, 'Go live'));
});

/** One record by id (a getter of the prop), following its changes. */
const RecordView = defineComponent(
  (props: { id: string }) => {
    const { record, loading, error, update, remove } = useRecord(posts, () => props.id, { live: true });
    return () =>
      h('div', [
        h(
          'p',
          { 'data-testid': 'record' },
          loading.value ? 'loading' : record.value ? `${record.value.title} (${record.value.status})` : 'none',
        ),
        error.value &&
          h('p', { role: 'alert', 'data-testid': 'record-error' }, `${error.value.status} ${error.value.code}`),
        h('button', { onClick: () => void update({ priority: 0 }) }, 'No priority'),
        h('button', { onClick: () => void remove() }, 'Delete record'),
      ]);
  },
  { props: { id: { type: String, required: true } } },
);

/** A collection's records, following their changes (`live: true`: the collections' stream). */
const RecordsViews = defineComponent(() => {
  const { items, total, hasMore, loadMore, error } = useRecords(
    posts,
    { filter: 'tags ?= "board"', sort: '-priority', perPage: 2, total: true },
    { live: true },
  );
  const id = ref('');
  return () =>
    h('section', { 'aria-label': 'records' }, [
      h(
        'p',
        { 'data-testid': 'records' },
        `${total.value} posts: ${items.value.map((p) => `${p.title}:${p.priority}`).join(', ')}` +
          (hasMore.value ? ' …' : ''),
      ),
      error.value &&
        h('p', { role: 'alert', 'data-testid': 'records-error' }, `${error.value.status} ${error.value.code}`),
      h('button', { onClick: () => void loadMore() }, 'Load more'),
      h('input', {
        'aria-label': 'record id',
        value: id.value,
        onInput: (e: Event) => (id.value = (e.target as HTMLInputElement).value),
      }),
      id.value && h(RecordView, { id: id.value }),
    ]);
});

const RecordsPanel = defineComponent(() => {
  const on = ref(false);
  return () => (on.value ? h(RecordsViews) : h('button', { onClick: () => (on.value = true) }, 'Show posts'));
});

const UploadPanel = defineComponent(() => {
  const { upload, progress, fraction, uploading, done, error } = useUpload(files);
  const seen = ref<number[]>([]);
  watch(progress, (p) => {
    if (p && seen.value.at(-1) !== p.loaded) seen.value = [...seen.value, p.loaded];
  });
  return () =>
    h('section', { 'aria-label': 'upload' }, [
      h('input', {
        type: 'file',
        'aria-label': 'file',
        onChange: (e: Event) => {
          const file = (e.target as HTMLInputElement).files?.[0];
          if (file) void upload(`uploads/${file.name}`, file);
        },
      }),
      h('progress', { value: fraction.value, max: 1 }),
      h(
        'p',
        { 'data-testid': 'upload' },
        uploading.value
          ? 'uploading'
          : done.value
            ? `done: ${done.value}, ${progress.value?.loaded} of ${progress.value?.total} bytes`
            : 'idle',
      ),
      h('p', { 'data-testid': 'upload-seen' }, seen.value.join(' ')),
      error.value &&
        h('p', { role: 'alert', 'data-testid': 'upload-error' }, `${error.value.status} ${error.value.code}`),
    ]);
});

createApp(
  defineComponent(
    () => () =>
      h('main', [
        h('h1', 'Roost with Vue'),
        h(UserPanel),
        h(Greeting),
        h(ItemPanel),
        h(ListPanel),
        h(LivePanel),
        h(RecordsPanel),
        h(UploadPanel),
      ]),
  ),
).mount('#app');
