import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openStream, type OpenStream } from '../helpers/event-stream.js';
import { useServer } from '../helpers/test-server.js';

const GROUPS = ['g1', 'g2'] as const;
const READERS = ['sys:everyone', 'sys:authenticated', 'sys:owner', 'g1', 'g2', 'admins'] as const;
const USERS = 4;

/** One random set-up: who is in which group, who may read, who writes what, whose items change hands. */
const setups = fc.record({
  groups: fc.array(fc.subarray([...GROUPS]), { minLength: USERS, maxLength: USERS }),
  readers: fc.subarray([...READERS], { minLength: 1 }),
  writers: fc.array(fc.integer({ min: 0, max: USERS - 1 }), { minLength: 1, maxLength: 5 }),
  gifts: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: USERS - 1 })), { maxLength: 2 }),
});

/**
 * Over random permission set-ups (issue 21, "Done when"): no event reaches a subscriber that may
 * not read its subject, and every subscriber that may read it hears of it. What "may read" means
 * is asked of the server itself: getItem with the subscriber's token, after each write.
 */
describe('live changes: no event reaches a subscriber that may not read its subject', () => {
  const s = useServer({ dataStores: { prop: {} } });
  const opened: OpenStream[] = [];
  after(() => {
    for (const stream of opened) stream.close();
  });
  let run = 0;

  test('random groups, read permissions, owners and changes of owner', async () => {
    const admin = await s.adminToken();
    await fc.assert(
      fc.asyncProperty(setups, async (setup) => {
        run++;
        const prefix = `run${run}/`;
        const tokens = await Promise.all(
          setup.groups.map((groups, i) => s.createUser(`r${run}u${i}`, { groups: [...groups] })),
        );
        const res = await s.request(
          '/prop/api/setPermissions',
          { permissions: [{ permission: 'getItem', groups: setup.readers, action: 'replace' }] },
          { token: admin },
        );
        assert.equal(res.status, 200);
        // Every user and an anonymous caller subscribe; those who may read nothing are refused.
        const subscribers = [...tokens, undefined];
        const streams = await Promise.all(
          subscribers.map((token) =>
            openStream(s.url, { ...(token ? { token } : {}), topics: [`items/prop?prefix=${prefix}`] }),
          ),
        );
        opened.push(...streams);
        const readable = async (token: string | undefined, key: string) =>
          (await s.request('/prop/api/getItem', { key }, token ? { token } : {})).status === 200;

        /** What each subscriber must have heard, from the server's own answers. */
        const expected: string[][] = subscribers.map(() => []);
        const keys: string[] = [];
        for (const [i, writer] of setup.writers.entries()) {
          const key = `${prefix}${i}`;
          keys.push(key);
          await s.request('/prop/api/newItem', { key, value: i }, { token: tokens[writer] });
          for (const [j, token] of subscribers.entries())
            if (streams[j]?.status === 200 && (await readable(token, key))) expected[j]?.push(`created ${key}`);
        }
        for (const [index, to] of setup.gifts) {
          const key = keys[index % keys.length] as string;
          const before = await Promise.all(subscribers.map((token) => readable(token, key)));
          await s.request('/prop/api/setOwner', { key, newOwner: `r${run}u${to}` }, { token: admin });
          for (const [j, token] of subscribers.entries()) {
            if (streams[j]?.status !== 200) continue;
            if (await readable(token, key)) expected[j]?.push(`owner_changed ${key} whole`);
            else if (before[j]) expected[j]?.push(`owner_changed ${key} left`);
          }
        }
        // Every expected event in (a loaded machine delivers late), then a little for any extra one.
        const deadline = Date.now() + 10_000;
        while (streams.some((st, j) => st.status === 200 && st.events.length < (expected[j]?.length ?? 0))) {
          if (Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (const [j, stream] of streams.entries()) {
          if (stream.status !== 200) {
            // Refused: then it may read none of them either.
            for (const key of keys) assert.equal(await readable(subscribers[j], key), false);
            continue;
          }
          const heard = (await stream.quiet(0)).map((e) => {
            const kind = e.data.event.slice(5);
            return kind === 'owner_changed'
              ? `${kind} ${e.data.key} ${e.data.item ? 'whole' : 'left'}`
              : `${kind} ${e.data.key}`;
          });
          assert.deepEqual(heard, expected[j], `subscriber ${j} of ${JSON.stringify(setup)}`);
          stream.close();
        }
      }),
      { numRuns: 12 },
    );
  });
});
