import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BlobStoreOptions } from '../../src/core/config.js';
import { newId } from '../../src/core/ids.js';

/**
 * A real S3-compatible server on 127.0.0.1 for the tests: s3rver (npm), which speaks the S3
 * REST protocol (single and multipart uploads, ranged reads, listings) over its own directory.
 * It accepts the access key `S3RVER` with any secret (it does not check V4 signatures) and
 * ignores conditional writes; Roost needs neither. One per test process, started on first use.
 */
export interface TestS3 {
  endpoint: string;
  /** Blob store settings for a new, empty bucket of its own. */
  newBucket(): Promise<Extract<BlobStoreOptions, { kind: 's3' }>>;
  close(): Promise<void>;
}

/** A fresh object each time: the SDK marks the credentials objects it is given. */
export const s3Credentials = () => ({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

// The SDK's note that its releases after January 2027 need Node 22 (it is pinned below them).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function startS3(options: { unref?: boolean } = {}): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'roost-s3-'));
  // A process of its own, as in a deployment (and so its memory is not the server's under test).
  const child = fork(fileURLToPath(new URL('./s3rver-child.mjs', import.meta.url)), [directory], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (options.unref) {
    child.unref();
    child.channel?.unref();
    process.once('exit', () => {
      child.kill();
      rmSync(directory, { recursive: true, force: true });
    });
  }
  const endpoint = `http://127.0.0.1:${port}`;
  // Imported here, not at the top: every test file imports this helper (through test-server.ts),
  // and the SDK costs about 0.15 s of CPU to load; only the files that start an S3 server need it.
  const { S3Client } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: s3Credentials() });
  return {
    endpoint,
    newBucket: () => newBucketOn(endpoint, client),
    async close() {
      client.destroy();
      child.kill();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A new, empty bucket of the server at `endpoint` (through `client`), as a file store's blob settings. */
export async function newBucketOn(
  endpoint: string,
  client: import('@aws-sdk/client-s3').S3Client,
): Promise<Extract<BlobStoreOptions, { kind: 's3' }>> {
  const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
  const bucket = `roost-${newId().replaceAll('-', '').slice(0, 20)}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    kind: 's3',
    endpoint,
    bucket,
    region: 'us-east-1',
    forcePathStyle: true,
    prefix: 'blobs/',
    partSizeBytes: 5 * 1024 * 1024,
    ...s3Credentials(),
  };
}

let shared: Promise<TestS3> | undefined;

/**
 * The test process's S3 server: it does not keep the process alive, and its directory is
 * removed when the process exits.
 */
export function sharedS3(): Promise<TestS3> {
  shared ??= startS3({ unref: true });
  return shared;
}
