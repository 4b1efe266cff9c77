import { randomBytes } from 'node:crypto';
import type { ClientMetadata } from 'oidc-provider';
import type { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { idpClientOptions } from '../core/config-users.js';
import { parseInput } from '../core/validation.js';
import { idpErrors } from './idp-errors.js';
import type { SecretBox } from '../users/index.js';
import type { IdpOptions } from './idp-provider.js';
import type { ClientRow, IdpRepo } from './idp-repo.js';

type ClientOptions = z.output<typeof idpClientOptions>;

/** A registered application as the library reads it: confidential with a secret, else public (PKCE its only proof). */
export function clientMetadata(client: ClientOptions): ClientMetadata {
  const native = client.redirectUris.some((u) => !/^https?:/.test(u));
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...(client.secret
      ? { client_secret: client.secret, token_endpoint_auth_method: 'client_secret_basic' }
      : { token_endpoint_auth_method: 'none' }),
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    application_type: native ? 'native' : 'web',
  };
}

/** What the admin page asks to register an application. */
export interface NewClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** A server-side application that keeps a secret; else a public one. */
  confidential: boolean;
}

/** An application as the admin page lists it. */
export interface ListedClient {
  clientId: string;
  name: string;
  confidential: boolean;
  redirectUris: string[];
  /** `configuration` for those of `identityProvider.clients` (changed there only). */
  source: 'configuration' | 'admin';
  created: number | null;
  createdBy: string | null;
}

const NEW_CLIENT = idpClientOptions.omit({ secret: true });

/**
 * The registered applications: those of the configuration (`identityProvider.clients`, handed to
 * the library as its static clients) and those an administrator registers on the admin page
 * (`idp_clients`, found by the library through the adapter, idp-adapter.ts, so every process
 * sees a new one and a removed one at once). The secret of a confidential one is made here,
 * shown once and kept sealed (users/secret-box.ts): the library compares it as sent.
 */
export function createClientRegistry(deps: { repo: IdpRepo; box: SecretBox; options: IdpOptions; clock: Clock }) {
  const { repo, box, options } = deps;
  const configured = (id: string) => options.clients.find((c) => c.clientId === id);
  const metadataOf = ({ secret, ...row }: ClientRow) =>
    clientMetadata({ ...row, ...(secret === null ? {} : { secret: box.open(secret) }) });

  return {
    /** The library's metadata of an application registered on the admin page (the configuration's are static). */
    async metadata(clientId: string): Promise<ClientMetadata | undefined> {
      const row = await repo.client(clientId);
      return row ? metadataOf(row) : undefined;
    },

    async nameOf(clientId: string): Promise<string> {
      return configured(clientId)?.name ?? (await repo.client(clientId))?.name ?? clientId;
    },

    async list(): Promise<ListedClient[]> {
      const fromConfig = options.clients.map((c) => ({
        clientId: c.clientId,
        name: c.name,
        confidential: c.secret !== undefined,
        redirectUris: c.redirectUris,
        source: 'configuration' as const,
        created: null,
        createdBy: null,
      }));
      const fromAdmin = (await repo.clients()).map((c) => ({
        clientId: c.clientId,
        name: c.name,
        confidential: c.secret !== null,
        redirectUris: c.redirectUris,
        source: 'admin' as const,
        created: c.created,
        createdBy: c.createdBy,
      }));
      return [...fromConfig, ...fromAdmin];
    },

    /** Registers an application; answers its secret (shown once) for a confidential one. */
    async add(adminName: string, input: NewClient): Promise<{ clientId: string; secret: string | null }> {
      const { confidential, ...fields } = input;
      const client = parseInput(NEW_CLIENT, fields);
      const taken = () => idpErrors.client_exists({ fields: [['clientId', 'exists']] });
      if (configured(client.clientId)) throw taken();
      const secret = confidential ? randomBytes(32).toString('base64url') : null;
      const stored = await repo.insertClient({
        ...client,
        secret: secret === null ? null : box.seal(secret),
        created: deps.clock.now(),
        createdBy: adminName,
      });
      if (!stored) throw taken();
      return { clientId: client.clientId, secret };
    },

    /** Removes an application of the admin page and what accounts allowed it. */
    async remove(clientId: string): Promise<void> {
      if (configured(clientId)) throw idpErrors.client_configured();
      await repo.removeClient(clientId);
    },
  };
}

export type ClientRegistry = ReturnType<typeof createClientRegistry>;
