import type { FieldConf } from '@roost/forms';
import type { Config } from '../../core/config.js';
import type { FieldProblem } from '../../core/errors.js';
import type { RuntimeSettings } from '../../core/runtime-settings.js';

/**
 * The S3 part of the settings page (admin/pages/settings-page.ts): each S3 bucket the
 * configuration's blob stores use, with its access key. Only the key changes here (rotated
 * without a restart: storage/s3-blob-store.ts makes a client for the new key at the next
 * operation); bucket, endpoint, region and prefix are shown, not changed: the files are where
 * they point, so they move with the configuration file and a copy of the bucket. The secret is
 * never put into the page; left empty, the key in force stays.
 */

interface S3Bucket {
  bucket: string;
  endpoint: string;
  region: string;
  prefix: string;
  /** The file stores whose contents live there (`*` for the default `blobs`). */
  stores: string[];
  /** The configuration's access key id; none: the SDK's own chain (environment, instance role). */
  configKeyId: string | undefined;
}

/** The S3 buckets of the configuration, each once. */
export function s3Buckets(config: Config): S3Bucket[] {
  const found = new Map<string, S3Bucket>();
  const uses: Array<[string, Config['blobs']]> = [
    ['(default)', config.blobs],
    ...Object.entries(config.fileStores).map(([name, store]): [string, Config['blobs']] => [
      name,
      store.blobs ?? config.blobs,
    ]),
  ];
  for (const [store, blobs] of uses) {
    if (blobs.kind !== 's3') continue;
    const known = found.get(blobs.bucket);
    if (known) {
      if (store !== '(default)') known.stores.push(store);
      continue;
    }
    found.set(blobs.bucket, {
      bucket: blobs.bucket,
      endpoint: blobs.endpoint ?? 'AWS',
      region: blobs.region,
      prefix: blobs.prefix,
      stores: store === '(default)' ? [] : [store],
      configKeyId: blobs.accessKeyId,
    });
  }
  return [...found.values()];
}

const idField = (i: number) => `s3KeyId${i}`;
const secretField = (i: number) => `s3Secret${i}`;

/** The key id in force for a bucket: set here, else the configuration's. */
const keyIdOf = (b: S3Bucket, current: RuntimeSettings) =>
  (Object.hasOwn(current.s3Keys, b.bucket) ? current.s3Keys[b.bucket]?.accessKeyId : undefined) ?? b.configKeyId ?? '';

export function s3Fields(buckets: readonly S3Bucket[], current: RuntimeSettings): FieldConf[] {
  return buckets.flatMap((b, i): FieldConf[] => {
    const origin = Object.hasOwn(current.s3Keys, b.bucket)
      ? 'Key set here.'
      : b.configKeyId
        ? 'Key of the configuration.'
        : 'Key of the SDK chain.';
    const where =
      `Bucket ${b.bucket} at ${b.endpoint} (${b.region})${b.prefix ? `, keys under ${b.prefix}` : ''}, ` +
      `for ${b.stores.length ? `the file stores ${b.stores.join(', ')}` : 'the file stores'}. ` +
      'Bucket, endpoint and prefix change in the configuration file only (the files are there).';
    return [
      {
        id: idField(i),
        name: `S3 access key id of ${b.bucket}`,
        datatype: 'string',
        size: 256,
        settings: { autocomplete: 'off' },
        description: `${where} ${origin} Empty: the configuration’s key again.`,
      },
      {
        id: secretField(i),
        name: `S3 secret access key of ${b.bucket}`,
        datatype: 'password',
        size: 256,
        settings: { autocomplete: 'new-password' },
        description: 'Never shown; typed twice. Leave it empty to keep the secret in force; give it with a new key id.',
      },
    ];
  });
}

/** The fields' values as the page shows them: key ids, never a secret. */
export function s3FormData(buckets: readonly S3Bucket[], current: RuntimeSettings): Record<string, string> {
  return Object.fromEntries(buckets.map((b, i) => [idField(i), keyIdOf(b, current)]));
}

/**
 * The `s3Keys` setting from the posted fields, or the problems by field: an unchanged id with no
 * secret keeps the key; an empty id goes back to the configuration's key; a new id needs its secret.
 * A form posted without the fields (an older page) changes nothing (undefined).
 */
export function s3Change(
  buckets: readonly S3Bucket[],
  current: RuntimeSettings,
  posted: Record<string, unknown>,
): { s3Keys: RuntimeSettings['s3Keys'] } | { problems: FieldProblem[] } | undefined {
  if (!buckets.some((_, i) => idField(i) in posted)) return undefined;
  const keys: Record<string, { accessKeyId: string; secretAccessKey: string }> = {};
  const problems: FieldProblem[] = [];
  buckets.forEach((b, i) => {
    const text = (field: string) => (typeof posted[field] === 'string' ? (posted[field] as string).trim() : '');
    const id = text(idField(i));
    const secret = text(secretField(i));
    const stored = Object.hasOwn(current.s3Keys, b.bucket) ? current.s3Keys[b.bucket] : undefined;
    if (id === '') return;
    if (secret !== '') keys[b.bucket] = { accessKeyId: id, secretAccessKey: secret };
    else if (stored && stored.accessKeyId === id) keys[b.bucket] = stored;
    else if (id !== b.configKeyId) problems.push([secretField(i), 'required']);
  });
  return problems.length ? { problems } : { s3Keys: keys };
}
