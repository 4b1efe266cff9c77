// Parse Server as a bench peer: installed under bench/peers/ on first use (its own lock file,
// so its dependency tree stays out of the project's install), started by peers/parse-server.ts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { here, start, type Server } from './lib.js';
import { postgresReachable } from './postgres.js';

export const APP_ID = 'roost-bench'; // as peers/parse-server.ts sets it
export interface ParseInfo {
  url: string;
  token: string;
  ids: string[];
}

/** PostgreSQL reachable and Parse Server installed (installing it if need be); else why not. */
export async function peerUnavailable(): Promise<string | null> {
  if (!(await postgresReachable())) return 'PostgreSQL is not reachable (set ROOST_BENCH_DATABASE_URL)';
  if (existsSync(`${here}peers/node_modules/parse-server/package.json`)) return null;
  console.log('installing Parse Server under bench/peers/ (once)');
  const r = spawnSync('npm', ['ci', '--prefix', `${here}peers`, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  return r.status === 0 ? null : 'Parse Server did not install under bench/peers/';
}

/** Parse Server with its items; `articles`: with the collections suite's authors and articles too. */
export function startParse(options: { articles?: boolean } = {}): Promise<Server<ParseInfo>> {
  // No log files in the working directory: Parse's logger writes ./logs from its first line
  // on, before its `logsFolder` option is read.
  const env = { PARSE_SERVER_LOGS_FOLDER: 'null', ...(options.articles ? { PARSE_ARTICLES: '1' } : {}) };
  return start<ParseInfo>('peers/parse-server.ts', env, { quiet: true });
}

/** The headers Parse's REST API asks of a signed-in caller. */
export const parseHeaders = (info: ParseInfo) => ({
  'x-parse-application-id': APP_ID,
  'x-parse-session-token': info.token,
});
