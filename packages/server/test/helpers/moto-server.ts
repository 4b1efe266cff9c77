import { spawn, spawnSync } from 'node:child_process';
import type { BlobStoreOptions } from '../../src/core/config.js';
import { newBucketOn, s3Credentials } from './s3-server.js';
import { freePort } from './test-server.js';

/**
 * moto's S3 server (`moto_server`, Python), for what s3rver (s3-server.ts) does not speak: the
 * listing of a multipart upload's parts, its abort and the bucket's unfinished uploads, which
 * resumable uploads to S3 need (@tus/s3-store; docs/filestore.md "Resumable uploads"). Started
 * on first use, one per test process; null where moto is not installed (then the caller says so).
 */
export interface TestMoto {
  newBucket(): Promise<Extract<BlobStoreOptions, { kind: 's3' }>>;
}

/** A bucket of its own on the test process's moto server: the `blobs` of a Roost. */
export type MotoBucket = Awaited<ReturnType<TestMoto['newBucket']>>;

let shared: Promise<TestMoto | null> | undefined;

/** Is `moto_server` on the PATH? */
const hasMoto = () => spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;

async function startMoto(): Promise<TestMoto | null> {
  if (!hasMoto()) return null;
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  child.unref();
  process.once('exit', () => child.kill());
  const endpoint = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const up = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (tries > 300) throw new Error('moto_server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { S3Client } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: s3Credentials() });
  return { newBucket: () => newBucketOn(endpoint, client) };
}

/** The test process's moto server, or null without moto. */
export function sharedMoto(): Promise<TestMoto | null> {
  shared ??= startMoto();
  return shared;
}

/**
 * The blobs of a test of resumable uploads: in the S3 pass (`ROOST_TEST_BLOBS=s3`) a bucket of
 * moto's, or, where moto is not installed, why the test skips; on local blobs, neither.
 */
export async function resumableUploadsBucket(): Promise<{ bucket?: MotoBucket; skipReason?: string }> {
  if (process.env.ROOST_TEST_BLOBS !== 's3') return {};
  const moto = await sharedMoto();
  if (!moto) return { skipReason: 'moto_server is not installed: resumable uploads to S3 are not tested here' };
  return { bucket: await moto.newBucket() };
}
