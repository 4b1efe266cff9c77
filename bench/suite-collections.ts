// Collections (issue 39, "Speed"), each against what it is measured by in the same minute, SQLite
// unless said (collections-server.ts; the collections in collections-fixtures.ts):
// - a create of a record of ten fields checked by its schema against newItem of one fresh key
//   (floor 70 %), a get of a record by id against getItem of one key (floor 80 %);
// - a page of 50 under the owner rule (`owner = @request.auth.id`) against the same page of the
//   same notes without a rule (floor 80 %);
// - a page of 50 articles of one category (an indexed field) with its total and each article's
//   author, against Parse Server doing the same (`where`, `count`, `include`) on PostgreSQL:
//   Roost on SQLite at least 10×, Roost on PostgreSQL at least 3× (skipped without PostgreSQL);
// - one record change heard by 1000 live queries with different filters: p99 under 100 ms
//   (collections-live.ts).
import { ARTICLE_CATEGORY, postOf } from './collections-fixtures.js';
import { type LiveFigures, liveFanOut, SUBSCRIBERS } from './collections-live.js';
import {
  compare,
  fresh,
  httpTarget,
  machineLine,
  type Measured,
  publish,
  renderTable,
  type Server,
  slicesLine,
  start,
  stop,
} from './lib.js';
import { type ParseInfo, parseHeaders, peerUnavailable, startParse } from './parse-peer.js';

interface Info {
  url: string;
  token: string;
  record: string;
  live: string;
}

const auth = (info: Info) => ({ authorization: `Bearer ${info.token}` });
const articlesPage = (info: Info) =>
  `${info.url}/api/collections/articles/records?filter=${encodeURIComponent(`category = "${ARTICLE_CATEGORY}"`)}` +
  '&perPage=50&total=true&expand=author';
const parseArticlesPage = (info: ParseInfo) =>
  `${info.url}/classes/Article?where=${encodeURIComponent(JSON.stringify({ category: ARTICLE_CATEGORY }))}` +
  '&limit=50&count=1&include=author&order=-createdAt';

/** Asks once and checks the answer, so that a measured row never measures a refusal or a short page. */
async function expectPage(url: string, headers: Record<string, string>, check: (body: never) => string | null) {
  const res = await fetch(url, { headers });
  const body = (await res.json()) as never;
  const problem = res.ok ? check(body) : `${res.status} ${JSON.stringify(body)}`;
  if (problem) throw new Error(`${url}: ${problem}`);
}

type Page = { items: Array<{ owner: string; expand?: { author?: { name?: string } } }>; total?: number };
type ParsePage = { results: Array<{ author?: { name?: string } }>; count?: number };

/** Is the articles' page 50 articles of 100, each with its author? */
const fullArticlesPage = (page: Page) =>
  page.items.length === 50 && page.total === 100 && page.items.every((a) => a.expand?.author?.name)
    ? null
    : `not 50 of 100 articles with their authors: ${JSON.stringify(page).slice(0, 300)}`;

async function againstParse(sqlite: Server<Info>, rows: Record<string, Measured>) {
  const unavailable = await peerUnavailable();
  if (unavailable) {
    console.log(`${unavailable}: the comparison with Parse Server is left out.`);
    return null;
  }
  let parse: Server<ParseInfo> | undefined;
  let postgres: Server<Info> | undefined;
  try {
    parse = await startParse({ articles: true });
    postgres = await start<Info>('collections-server.ts', { BENCH_POSTGRES: '1' });
    const parseHeadersOf = parseHeaders(parse.info);
    await expectPage(parseArticlesPage(parse.info), parseHeadersOf, (page: ParsePage) =>
      page.results.length === 50 && page.count === 100 && page.results.every((a) => a.author?.name)
        ? null
        : `not 50 of 100 articles with their authors: ${JSON.stringify(page).slice(0, 300)}`,
    );
    for (const roost of [postgres, sqlite])
      await expectPage(articlesPage(roost.info), auth(roost.info), fullArticlesPage);
    const [p, pg, lite] = await compare([
      httpTarget('Parse Server: GET /classes/Article?where=…&limit=50&count=1&include=author', parse, {
        url: parseArticlesPage(parse.info),
        headers: parseHeadersOf,
      }),
      httpTarget('Roost on PostgreSQL: GET …/articles/records?filter=…&perPage=50&total=true&expand=author', postgres, {
        url: articlesPage(postgres.info),
        headers: auth(postgres.info),
      }),
      httpTarget('Roost on SQLite: the same', sqlite, { url: articlesPage(sqlite.info), headers: auth(sqlite.info) }),
    ]);
    rows['articles.parse'] = p!;
    rows['articles.postgres'] = pg!;
    rows['articles.sqlite'] = lite!;
    return renderTable(
      [
        { label: `${p!.name} (PostgreSQL)`, m: p! },
        { label: `${pg!.name} (floor 3×)`, m: pg!, baseline: p! },
        { label: `${lite!.name} (floor 10×)`, m: lite!, baseline: p! },
      ],
      'Parse Server',
    );
  } finally {
    await stop(parse, postgres);
  }
}

function liveTable(live: LiveFigures): string {
  const m = live.measured;
  return [
    '| live queries | writes | events heard (missed) | p50 / p99 ms from the answer (floor: p99 < 100) | ' +
      'p50 / p99 ms from the send | events read before the answer | server CPU µs per write |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| ${SUBSCRIBERS}, each filter different, SQLite | ${live.writes} | ${live.writes * SUBSCRIBERS - m.errors} ` +
      `(${m.errors}) | ${m.p50} / ${m.p99} | ${live.fromSend.p50} / ${live.fromSend.p99} | ${live.beforeAnswer} | ` +
      `${m.cpuUs === null ? '–' : Math.round(m.cpuUs)} |`,
    '',
    `Opening the ${SUBSCRIBERS} streams (one at a time, each its own filter) took ${Math.round(live.openMs)} ms.`,
  ].join('\n');
}

export async function run(): Promise<void> {
  const machine = machineLine(
    'Roost on SQLite; against Parse Server, Parse and a second Roost on PostgreSQL 15 on the same machine.',
  );
  const roost = await start<Info>('collections-server.ts');
  try {
    const { url, record } = roost.info;
    const headers = auth(roost.info);
    const json = { ...headers, 'content-type': 'application/json' };
    const [newItem, create, getItem, get] = await compare([
      httpTarget('newItem, one fresh key (POST JSON)', roost, {
        url,
        requests: fresh('POST', '/data/api/newItem', json, (n) => ({ key: n, value: `value of ${n}` })),
      }),
      httpTarget('create a record of ten fields (POST JSON)', roost, {
        url,
        requests: fresh('POST', '/api/collections/posts/records', json, (n) => postOf(n)),
      }),
      httpTarget('getItem (GET ?key=)', roost, { url: `${url}/data/api/getItem?key=k500`, headers }),
      httpTarget('get a record by id (GET)', roost, { url: `${url}/api/collections/posts/records/${record}`, headers }),
    ]);

    const notes = (collection: string) => `${url}/api/collections/${collection}/records?perPage=50`;
    const { id: me } = (await (await fetch(`${url}/users/api/identity`, { headers })).json()) as { id: string };
    await expectPage(notes('open_notes'), headers, (page: Page) =>
      page.items.length === 50 ? null : 'not a page of 50',
    );
    await expectPage(notes('own_notes'), headers, (page: Page) =>
      page.items.length === 50 && page.items.every((n) => n.owner === me) ? null : 'not 50 notes of the caller',
    );
    const [openList, ownList] = await compare([
      httpTarget('a page of 50 notes, list rule "" (GET ?perPage=50)', roost, { url: notes('open_notes'), headers }),
      httpTarget('the same page under the owner rule', roost, { url: notes('own_notes'), headers }),
    ]);

    const rows: Record<string, Measured> = {
      newItem: newItem!,
      create: create!,
      getItem: getItem!,
      get: get!,
      openList: openList!,
      ownList: ownList!,
    };
    const parseTable = await againstParse(roost, rows);
    console.log(`one change to ${SUBSCRIBERS} live queries`);
    const live = await liveFanOut(roost);
    rows.live = live.measured;
    publish('collections', machine, slicesLine(), rows, [
      renderTable([
        { label: rows.newItem!.name, m: rows.newItem! },
        { label: `${rows.create!.name} against newItem (floor 70 %)`, m: rows.create!, baseline: rows.newItem! },
        { label: rows.getItem!.name, m: rows.getItem! },
        { label: `${rows.get!.name} against getItem (floor 80 %)`, m: rows.get!, baseline: rows.getItem! },
        { label: rows.openList!.name, m: rows.openList! },
        { label: `${rows.ownList!.name} (floor 80 %)`, m: rows.ownList!, baseline: rows.openList! },
      ]),
      '',
      parseTable ?? 'The comparison with Parse Server was left out (no PostgreSQL).',
      '',
      liveTable(live),
    ]);
  } finally {
    await stop(roost);
  }
}
