// The file store (SQLite) against @fastify/static serving the same file and directory, and a
// bare Fastify upload route, in the same minute.
import { request } from 'node:http';
import {
  clientTarget,
  compare,
  httpTarget,
  machineLine,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
  type Server,
  type Target,
} from './lib.js';
import { bigFile } from './filestore-fixture.js';

// 1 MiB bodies (and listings of 1000 entries): 10 connections, so that the load generator,
// which parses every byte in JavaScript, is less what is measured.
const CONNECTIONS = 10;

/**
 * Downloads with Node's own HTTP client discarding the bodies, 10 keep-alive connections: a
 * second opinion on the 1 MiB rows, since autocannon parses bodies in JavaScript and may be
 * what sets the pace there.
 */
function downloadTarget(name: string, server: Server<unknown>, url: string, headers: Record<string, string>): Target {
  return clientTarget(
    name,
    server,
    CONNECTIONS,
    (agent) =>
      new Promise<boolean>((resolve) => {
        request(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        })
          .on('error', () => resolve(false))
          .end();
      }),
  );
}

export async function run(): Promise<void> {
  const machine = machineLine('SQLite.');
  const files = await start<{ url: string; token: string }>('filestore-server.ts');
  const served = await start('static-server.ts');
  const bare = await start('bare-server.ts');
  try {
    const { url, token } = files.info;
    const auth = { authorization: `Bearer ${token}` };
    const big = { connections: CONNECTIONS };
    const [staticRead, roostRead, roostReadToken] = await compare([
      httpTarget('@fastify/static: GET 1 MiB file', served, { ...big, url: `${served.info.url}/big.bin` }),
      httpTarget('file read 1 MiB (GET, anonymous, public store)', files, { ...big, url: `${url}/files/big.bin` }),
      httpTarget('file read 1 MiB (GET with token)', files, { ...big, url: `${url}/files/api/big.bin`, headers: auth }),
    ]);
    const [staticDownload, roostDownload] = await compare([
      downloadTarget('@fastify/static: GET 1 MiB file, node:http client', served, `${served.info.url}/big.bin`, {}),
      downloadTarget('file read 1 MiB (GET with token), node:http client', files, `${url}/files/api/big.bin`, auth),
    ]);
    const upload = {
      ...big,
      method: 'PUT' as const,
      body: bigFile,
      headers: { 'content-type': 'application/octet-stream' },
    };
    const [bareUpload, roostWrite] = await compare([
      httpTarget('bare Fastify upload: 1 MiB streamed to a file, synced, renamed', bare, {
        ...upload,
        url: `${bare.info.url}/upload`,
      }),
      httpTarget('file write 1 MiB (PUT @write with token)', files, {
        ...upload,
        url: `${url}/files/api/written.bin/@write`,
        headers: { ...upload.headers, ...auth },
      }),
    ]);
    const [staticList, roostList] = await compare([
      httpTarget('@fastify/static: JSON listing of 1000 entries (extended)', served, {
        ...big,
        url: `${served.info.url}/many/`,
      }),
      httpTarget('directory listing of 1000 entries (@list, size=1000)', files, {
        ...big,
        url: `${url}/files/many/@list?size=1000`,
      }),
    ]);
    const rows = {
      staticRead: staticRead!,
      read: roostRead!,
      readToken: roostReadToken!,
      staticDownload: staticDownload!,
      download: roostDownload!,
      bareUpload: bareUpload!,
      write: roostWrite!,
      staticList: staticList!,
      list: roostList!,
    };
    publish('filestore', machine, slicesLine(CONNECTIONS), rows, [
      renderTable([
        { label: rows.staticRead.name, m: rows.staticRead },
        { label: rows.read.name, m: rows.read, baseline: rows.staticRead },
        { label: rows.readToken.name, m: rows.readToken, baseline: rows.staticRead },
        { label: rows.staticDownload.name, m: rows.staticDownload },
        { label: rows.download.name, m: rows.download, baseline: rows.staticDownload },
        { label: rows.bareUpload.name, m: rows.bareUpload },
        { label: rows.write.name, m: rows.write, baseline: rows.bareUpload },
        { label: rows.staticList.name, m: rows.staticList },
        { label: rows.list.name, m: rows.list, baseline: rows.staticList },
      ]),
    ]);
  } finally {
    await stop(files, served, bare);
  }
}
