// Resumable uploads (tus, docs/filestore.md "Resumable uploads") against Roost's plain streamed
// upload (PUT @write) of the same bytes, in the same minute (issue 41: tus throughput at least
// 80% of the plain upload's).
import { type Agent, request } from 'node:http';
import { clientTarget, compare, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';
import { largeUpload } from './resumable-large.js';

const CONNECTIONS = 4;
const MiB = 1024 * 1024;

/** One HTTP request with a body, its answer read: the status and the headers. */
function send(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer) {
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const req = request(url, { agent, method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function run(): Promise<void> {
  const machine = machineLine('SQLite, local blobs.');
  const files = await start<{ url: string; token: string }>('filestore-server.ts');
  try {
    const { url, token } = files.info;
    const auth = { 'x-auth-token': token };
    const rows: Record<string, Awaited<ReturnType<typeof compare>>[number]> = {};
    let count = 0;
    for (const size of [MiB, 16 * MiB]) {
      const body = Buffer.alloc(size, 7);
      const label = `${size / MiB} MiB`;
      const [plain, tus, tusOne] = await compare([
        clientTarget(`file write ${label} (PUT @write), files/s`, files, CONNECTIONS, async (agent) => {
          const n = count++;
          const put = await send(
            agent,
            `${url}/files/plain-${n}.bin/@write`,
            'PUT',
            {
              ...auth,
              'content-type': 'application/octet-stream',
            },
            body,
          );
          return put.status === 200;
        }),
        clientTarget(`tus upload ${label} (POST, then one PATCH), files/s`, files, CONNECTIONS, async (agent) => {
          const n = count++;
          const metadata = `path ${Buffer.from(`tus-${n}.bin`).toString('base64')}`;
          const created = await send(agent, `${url}/files/@uploads`, 'POST', {
            ...auth,
            'tus-resumable': '1.0.0',
            'upload-length': String(size),
            'upload-metadata': metadata,
          });
          if (created.status !== 201 || !created.location) return false;
          const patched = await send(
            agent,
            url + created.location,
            'PATCH',
            {
              ...auth,
              'tus-resumable': '1.0.0',
              'upload-offset': '0',
              'content-type': 'application/offset+octet-stream',
            },
            body,
          );
          return patched.status === 204;
        }),
        // tus's creation-with-upload extension: the bytes in the creating POST, one request a
        // file (tus-js-client's `uploadDataDuringCreation`); the PATCH above is what resumes.
        clientTarget(
          `tus upload ${label} (creation-with-upload: one POST), files/s`,
          files,
          CONNECTIONS,
          async (agent) => {
            const n = count++;
            const created = await send(
              agent,
              `${url}/files/@uploads`,
              'POST',
              {
                ...auth,
                'tus-resumable': '1.0.0',
                'upload-length': String(size),
                'upload-metadata': `path ${Buffer.from(`tus-one-${n}.bin`).toString('base64')}`,
                'content-type': 'application/offset+octet-stream',
              },
              body,
            );
            return created.status === 201;
          },
        ),
      ]);
      rows[`plain${size / MiB}`] = plain!;
      rows[`tus${size / MiB}`] = tus!;
      rows[`tusOne${size / MiB}`] = tusOne!;
    }
    publish('resumable', machine, slicesLine(CONNECTIONS), rows, [
      renderTable([
        { label: rows.plain1!.name, m: rows.plain1! },
        { label: rows.tus1!.name, m: rows.tus1!, baseline: rows.plain1! },
        { label: rows.tusOne1!.name, m: rows.tusOne1!, baseline: rows.plain1! },
        { label: rows.plain16!.name, m: rows.plain16! },
        { label: rows.tus16!.name, m: rows.tus16!, baseline: rows.plain16! },
        { label: rows.tusOne16!.name, m: rows.tusOne16!, baseline: rows.plain16! },
      ]),
    ]);
    // Then one upload of 1 GiB, cut three times (bench/resumable-large.ts), on the same server.
    const large = await largeUpload(files);
    publish(
      'resumable-1gb',
      machineLine('SQLite, local blobs.'),
      'One upload, timed whole, after the table above on the same server.',
      { large: large.row },
      large.text,
    );
  } finally {
    await stop(files);
  }
}
