// The requests the suites send to a bench Roost (roost-server.ts: the user `bench` with items
// k0..k999), written once so that every suite measures the same operation the same way.
import { fresh, type HttpTargetOptions } from './lib.js';

/** What roost-server.ts reports once it listens. */
export type RoostInfo = { url: string; token: string };

export type RoostOp = 'identity' | 'getItem' | 'setItem' | 'newItem' | 'list' | 'keys';

/** One request of `op`: a point read of k500, a replace of k502, a fresh key, a page of 50 from 101. */
export function roostRequest(op: RoostOp, { url, token }: RoostInfo): HttpTargetOptions {
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  switch (op) {
    case 'identity':
      return { url: `${url}/users/api/identity`, headers: auth };
    case 'getItem':
      return { url: `${url}/data/api/getItem?key=k500`, headers: auth };
    case 'setItem':
      return {
        url: `${url}/data/api/setItem`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
      };
    case 'newItem':
      return { url, requests: fresh('POST', '/data/api/newItem', json, (n) => ({ key: n, value: `value of ${n}` })) };
    case 'list':
      return { url: `${url}/data/api/list?start=101&size=50`, headers: auth };
    case 'keys':
      return { url: `${url}/data/api/keys?start=101&size=50`, headers: auth };
  }
}

/** What collections-server.ts reports: also the id of a record of `posts`. */
export type CollectionsInfo = RoostInfo & { record?: string };

const bearer = (i: CollectionsInfo) => ({ authorization: `Bearer ${i.token}` });
/** The collections' operations, as suite-collections.ts asks them of collections-server.ts. */
export const COLLECTION_OPS: Record<string, (info: CollectionsInfo) => HttpTargetOptions> = {
  articles: (i) => ({
    url:
      `${i.url}/api/collections/articles/records?filter=${encodeURIComponent('category = "c5"')}` +
      '&perPage=50&total=true&expand=author',
    headers: bearer(i),
  }),
  notes: (i) => ({ url: `${i.url}/api/collections/open_notes/records?perPage=50`, headers: bearer(i) }),
  ownNotes: (i) => ({ url: `${i.url}/api/collections/own_notes/records?perPage=50`, headers: bearer(i) }),
  getRecord: (i) => ({ url: `${i.url}/api/collections/posts/records/${i.record}`, headers: bearer(i) }),
  createRecord: (i) => ({
    url: i.url,
    requests: fresh(
      'POST',
      '/api/collections/posts/records',
      { ...bearer(i), 'content-type': 'application/json' },
      (n) => ({
        title: `Post ${n}`,
        priority: 2,
      }),
    ),
  }),
};
