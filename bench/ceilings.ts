// The in-process ceilings, in a child process of their own (one core, as a server has): on the
// IPC message `{loop, seconds}` it runs that loop for that long and answers with how many
// operations it did.
// - `sqlite-point-read`: better-sqlite3 reading one item by its key from Roost's table of items
//   (1000 rows, WAL mode as Roost runs it), the statement prepared once: the storage ceiling of
//   getItem.
// - `argon2id-verify`: checking a password against a hash with Roost's own parameters
//   (users/passwords.ts), 10 at once as the sign-in rows' 10 connections ask: the ceiling of sign-in.
import { join } from 'node:path';
import { SQLite } from '../packages/server/src/storage/sqlite-driver.js';
import { parseConfig } from '../packages/server/src/core/config.js';
import { createPasswords } from '../packages/server/src/users/passwords.js';
import { tempDir } from './server-lifecycle.js';

const dir = tempDir('roost-bench-ceiling-');

const sqlite = new SQLite(join(dir, 'items.db'));
sqlite.pragma('journal_mode = WAL');
sqlite.pragma('synchronous = NORMAL');
// Roost's table of items (storage/migrations), with its unique index on (store, key).
sqlite.exec(`create table datastore_items (id integer primary key autoincrement, store varchar(63) not null,
  key text not null, value text not null, number double precision, owner varchar(64), updated bigint not null)`);
sqlite.exec('create unique index datastore_items_key on datastore_items (store, key)');
const insert = sqlite.prepare('insert into datastore_items (store, key, value, owner, updated) values (?, ?, ?, ?, ?)');
sqlite.transaction(() => {
  for (let i = 0; i < 1000; i++)
    insert.run('data', `k${i}`, JSON.stringify(`value of item ${i}`), 'bench-user-id', Date.now());
})();
const select = sqlite.prepare('select * from datastore_items where store = ? and key = ?');

const password = 'bench-password';
// The cost a server has by default (`users.passwordHashing`).
const passwords = createPasswords(parseConfig({}).users.passwordHashing);
const stored = await passwords.hash(password);

const loops: Record<string, (until: number) => Promise<number>> = {
  async 'sqlite-point-read'(until) {
    let n = 0;
    while (performance.now() < until) {
      // Checking the clock every 1000 reads keeps its cost out of the figure.
      for (let i = 0; i < 1000; i++) if (!select.get('data', `k${(n + i) % 1000}`)) throw new Error('row missing');
      n += 1000;
    }
    return n;
  },
  async 'argon2id-verify'(until) {
    let n = 0;
    const worker = async () => {
      while (performance.now() < until) {
        if (!(await passwords.verify(stored, password))) throw new Error('verify failed');
        n++;
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    return n;
  },
};

process.on('message', (message: { loop: string; seconds: number }) => {
  const loop = loops[message.loop];
  if (!loop) throw new Error(`unknown loop ${message.loop}`);
  const begin = performance.now();
  void loop(begin + message.seconds * 1000).then((requests) => {
    process.send?.({ loop: message.loop, requests, seconds: (performance.now() - begin) / 1000 });
  });
});
process.send?.({ url: '' });
