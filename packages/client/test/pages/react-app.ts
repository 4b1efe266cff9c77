/**
 * A React page exercising every hook of `@roost/client/react` against the Roost that serves it
 * (bundled by esbuild in browser-react.test.ts). Written with createElement, no JSX step.
 */
import { createElement as h, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { collections, datastore, filestore, realtime, users } from '../../src/index.js';
import { useDirectory, useItem, useList, useRecord, useRecords, useUpload, useUser } from '../../src/react/index.js';
import type { Collections } from '../fixtures/roost-types.js';

// Same origin: the connectors use the page's origin and the browser's `auth` cookie.
const auth = users();
const data = datastore('data');
const files = filestore('files');
const notes = datastore('notes');
// One stream for every live view of the page (cookie mode, as the other connectors).
const live = realtime();
// The collections, typed by what `roost types` writes (fixtures/roost-types.ts); their own stream.
const posts = collections<Collections>().collection('posts');

function UserPanel() {
  const { user, loading, error, signin, signout, challenge, setup, recoveryCodes, enrol, secondStep } = useUser(auth);
  const [identity, setIdentity] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  return h(
    'section',
    { 'aria-label': 'user' },
    h('p', { 'data-testid': 'user' }, loading ? 'loading' : user ? `signed in as ${user.name}` : 'anonymous'),
    error && h('p', { role: 'alert', 'data-testid': 'user-error' }, `${error.status} ${error.code}`),
    h('input', {
      'aria-label': 'identity',
      value: identity,
      onChange: (e: { target: { value: string } }) => setIdentity(e.target.value),
    }),
    h('input', {
      'aria-label': 'password',
      type: 'password',
      value: password,
      onChange: (e: { target: { value: string } }) => setPassword(e.target.value),
    }),
    h('button', { type: 'button', onClick: () => void signin(identity, password) }, 'Sign in'),
    h('button', { type: 'button', onClick: () => void signout() }, 'Sign out'),
    challenge &&
      h(
        'div',
        { 'data-testid': 'user-challenge' },
        challenge.enrol ? 'set up an authenticator' : 'enter your code',
        challenge.enrol && h('button', { type: 'button', onClick: () => void enrol() }, 'Set up'),
        setup && h('code', { 'data-testid': 'user-setup' }, setup.secret),
        h('input', {
          'aria-label': 'code',
          value: code,
          onChange: (e: { target: { value: string } }) => setCode(e.target.value),
        }),
        h('button', { type: 'button', onClick: () => void secondStep({ code }) }, 'Verify'),
      ),
    recoveryCodes && h('p', { 'data-testid': 'user-recovery' }, `${recoveryCodes.length} recovery codes`),
  );
}

/** A second view of the same connector: the session is shared. */
function Greeting() {
  const { user } = useUser(auth);
  return h('p', { 'data-testid': 'greeting' }, user ? `Hello, ${user.realname || user.name}` : 'Hello, guest');
}

function ItemPanel() {
  const [key, setKey] = useState('note-1');
  const { item, loading, error, save, remove } = useItem(data, key);
  const [value, setValue] = useState('');
  return h(
    'section',
    { 'aria-label': 'item' },
    h(
      'select',
      { 'aria-label': 'key', value: key, onChange: (e: { target: { value: string } }) => setKey(e.target.value) },
      h('option', { value: 'note-1' }, 'note-1'),
      h('option', { value: 'note-2' }, 'note-2'),
    ),
    h(
      'p',
      { 'data-testid': 'item' },
      loading ? 'loading' : item ? `${item.key} = ${item.value} (${item.owner})` : `${key}: none`,
    ),
    error && h('p', { role: 'alert', 'data-testid': 'item-error' }, `${error.status} ${error.code}`),
    h('input', {
      'aria-label': 'value',
      value,
      onChange: (e: { target: { value: string } }) => setValue(e.target.value),
    }),
    h('button', { type: 'button', onClick: () => void save(value) }, 'Save'),
    h('button', { type: 'button', onClick: () => void remove() }, 'Remove'),
  );
}

function ListPanel() {
  const [owner, setOwner] = useState<string | undefined>(undefined);
  // A query written inline: a new owner filter starts again at page 1.
  const { items, page, pages, total, loading, next, previous, refresh } = useList(data, {
    size: 2,
    sort: 'key',
    ...(owner ? { owner } : {}),
  });
  return h(
    'section',
    { 'aria-label': 'list' },
    h(
      'p',
      { 'data-testid': 'list' },
      loading ? 'loading' : `page ${page} of ${pages}, ${total} items: ${items.map((i) => i.key).join(', ')}`,
    ),
    h('button', { type: 'button', onClick: () => void previous() }, 'Previous'),
    h('button', { type: 'button', onClick: () => void next() }, 'Next'),
    h('button', { type: 'button', onClick: () => void refresh() }, 'Refresh'),
    h('button', { type: 'button', onClick: () => setOwner(owner ? undefined : 'bob') }, 'Only bob'),
  );
}

function UploadPanel() {
  const { upload, progress, fraction, uploading, done, error } = useUpload(files);
  // Every progress the hook reported, in order.
  const [seen, setSeen] = useState<number[]>([]);
  useEffect(() => {
    if (progress) setSeen((before) => (before.at(-1) === progress.loaded ? before : [...before, progress.loaded]));
  }, [progress]);
  return h(
    'section',
    { 'aria-label': 'upload' },
    h('input', {
      type: 'file',
      'aria-label': 'file',
      onChange: (e: { target: { files: FileList | null } }) => {
        const file = e.target.files?.[0];
        if (file) void upload(`uploads/${file.name}`, file);
      },
    }),
    h('progress', { value: fraction, max: 1 }),
    h(
      'p',
      { 'data-testid': 'upload' },
      uploading ? 'uploading' : done ? `done: ${done}, ${progress?.loaded} of ${progress?.total} bytes` : 'idle',
    ),
    h('p', { 'data-testid': 'upload-seen' }, seen.join(' ')),
    error && h('p', { role: 'alert', 'data-testid': 'upload-error' }, `${error.status} ${error.code}`),
  );
}

/** Views that follow live changes: nothing here asks again, the stream brings the changes. */
function LiveViews() {
  const { item } = useItem(data, 'live-note', { live });
  const list = useList(notes, { size: 2, sort: 'key' }, { live });
  const dir = useDirectory(files, 'live', {}, { live });
  return h(
    'section',
    { 'aria-label': 'live' },
    h('p', { 'data-testid': 'live-item' }, item ? `live-note = ${item.value}` : 'live-note: none'),
    h(
      'p',
      { 'data-testid': 'live-list' },
      `page ${list.page} of ${list.pages}, ${list.total} notes: ${list.items.map((i) => i.key).join(', ')}`,
    ),
    h('p', { 'data-testid': 'live-dir' }, `${dir.total} entries: ${dir.items.map((e) => e.name).join(', ')}`),
  );
}

function LivePanel() {
  const [on, setOn] = useState(false);
  return on ? h(LiveViews) : h('button', { type: 'button', onClick: () => setOn(true) }, 'Go live');
}

/** A collection's records and one record, following their changes (`live: true`: the collections' stream). */
function RecordsViews() {
  const { items, total, hasMore, loadMore, error } = useRecords(posts, {
    filter: 'tags ?= "board"',
    sort: '-priority',
    perPage: 2,
    total: true,
    live: true,
  });
  const [id, setId] = useState('');
  return h(
    'section',
    { 'aria-label': 'records' },
    h(
      'p',
      { 'data-testid': 'records' },
      `${total} posts: ${items.map((p) => `${p.title}:${p.priority}`).join(', ')}${hasMore ? ' …' : ''}`,
    ),
    error && h('p', { role: 'alert', 'data-testid': 'records-error' }, `${error.status} ${error.code}`),
    h('button', { type: 'button', onClick: () => void loadMore() }, 'Load more'),
    h('input', {
      'aria-label': 'record id',
      value: id,
      onChange: (e: { target: { value: string } }) => setId(e.target.value),
    }),
    id && h(RecordView, { id }),
  );
}

function RecordView({ id }: { id: string }) {
  const { record, loading, error, update, remove } = useRecord(posts, id, { live: true });
  return h(
    'div',
    null,
    h('p', { 'data-testid': 'record' }, loading ? 'loading' : record ? `${record.title} (${record.status})` : 'none'),
    error && h('p', { role: 'alert', 'data-testid': 'record-error' }, `${error.status} ${error.code}`),
    h('button', { type: 'button', onClick: () => void update({ priority: 0 }) }, 'No priority'),
    h('button', { type: 'button', onClick: () => void remove() }, 'Delete record'),
  );
}

function RecordsPanel() {
  const [on, setOn] = useState(false);
  return on ? h(RecordsViews) : h('button', { type: 'button', onClick: () => setOn(true) }, 'Show posts');
}

function App() {
  return h(
    'main',
    null,
    h('h1', null, 'Roost with React'),
    h(UserPanel),
    h(Greeting),
    h(ItemPanel),
    h(ListPanel),
    h(LivePanel),
    h(RecordsPanel),
    h(UploadPanel),
  );
}

createRoot(document.getElementById('app') as HTMLElement).render(h(StrictMode, null, h(App)));
