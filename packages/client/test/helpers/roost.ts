import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  freePort,
  startServer,
  tokenFromMail,
  PASSWORD,
  type TestServer,
} from '../../../server/test/helpers/test-server.js';

export { PASSWORD, tokenFromMail, type TestServer };

const ADMIN_ADDRESS = 'postmaster@example.com';
/** Small enough that a test can exceed it cheaply. */
export const MAX_FILE_BYTES = 256 * 1024;

/**
 * The collections of the client's tests (fixtures/collections.json): `posts` and `authors`, whose
 * record types `roost types` writes to fixtures/roost-types.ts (held to it by the server's cli.test.ts).
 */
const FIXTURE_COLLECTIONS = JSON.parse(
  readFileSync(new URL('../fixtures/collections.json', import.meta.url), 'utf8'),
) as Record<string, { schema: Record<string, unknown>; rules: Record<string, string | null> }>;

/**
 * A real Roost for the connector tests: the store `data`, the store `notes` taking at most two
 * items a call (for 413), the file store `files` with a small size limit, an administrator
 * address for `message`, the collections of {@link FIXTURE_COLLECTIONS}. Its public address is
 * the one it listens on, so a provider sign-in's redirect URI leads back to it.
 */
export async function startRoost(options: { maxFileBytes?: number; smsGateway?: string } = {}): Promise<TestServer> {
  const port = await freePort();
  return startServer({
    port,
    // Codes by SMS through a gateway the test runs (server/test/helpers/webhook-receiver.ts), when given.
    ...(options.smsGateway ? { users: { sms: { sender: { url: options.smsGateway }, resendSeconds: 0 } } } : {}),
    publicUrl: `http://127.0.0.1:${port}`,
    mail: { adminAddress: ADMIN_ADDRESS },
    dataStores: { data: {}, notes: { maxBatch: 2 } },
    fileStores: { files: { maxFileBytes: options.maxFileBytes ?? MAX_FILE_BYTES } },
    collections: FIXTURE_COLLECTIONS,
  });
}

/**
 * The user operations that need a browser's authenticator: browser-passkeys.test.ts covers them,
 * and the other suites' "every operation" checks leave them to it.
 */
export const PASSKEY_OPERATIONS = [
  'passkeyOptions',
  'passkeyRegister',
  'passkeys',
  'renamePasskey',
  'removePasskey',
  'passkeySigninOptions',
  'passkeyToken',
  'passkeySignin',
];

/** The operations of a service as its page in docs/ lists them (`### \`op\``). */
export function documentedOperations(service: 'users' | 'datastore' | 'filestore'): string[] {
  const text = readFileSync(new URL(`../../../../docs/${service}.md`, import.meta.url), 'utf8');
  return [...text.matchAll(/^### `([A-Za-z0-9]+)`/gm)].map((m) => m[1] as string);
}

/** Records the operations that succeeded through connectors built with its `onSuccess`. */
export class Coverage {
  readonly called = new Set<string>();
  readonly onSuccess = (operation: string) => {
    this.called.add(operation);
  };

  /** Every one of `operations` succeeded at least once. */
  assertCalled(operations: string[]): void {
    assert.deepEqual(
      operations.filter((op) => !this.called.has(op)),
      [],
      'operations never called successfully through the connector',
    );
  }
}

/** The generated password of a `signupSendpw` mail. */
export function passwordFromMail(text: string): string {
  const match = /password: (\S+)/.exec(text);
  assert.ok(match?.[1], text);
  return match[1];
}
