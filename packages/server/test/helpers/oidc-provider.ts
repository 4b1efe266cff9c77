import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account of the test provider: what its claims say. */
interface ProviderAccount {
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claims of the account whose login is `login`; by default `<login>@example.com`, verified. */
  accounts: Map<string, ProviderAccount>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider on 127.0.0.1 (npm `oidc-provider`, in memory), for the sign-in
 * tests: one confidential client that may send browsers back to `redirectUris` (and public clients
 * of native apps, `appClients`, for ID tokens an app gets on the device), PKCE required,
 * and the library's own login and consent pages ("dev interactions": any login and password
 * sign in; the login names the account). Its claims come from `accounts`.
 */
export async function startOpenIdProvider(
  redirectUris: string[],
  /** Public clients of native apps (no secret, PKCE), each sending browsers back to `redirectUri`. */
  appClients: { clientId: string; redirectUri: string }[] = [],
): Promise<TestOpenIdProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, ProviderAccount>();
  const clientId = 'roost-test';
  const clientSecret = 'a-client-secret-for-the-tests';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
      ...appClients.map((c) => ({
        client_id: c.clientId,
        redirect_uris: [c.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code' as const],
        token_endpoint_auth_method: 'none' as const,
      })),
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // With app clients, the ID token carries the profile's claims as Apple's and Google's do (an
    // app sends Roost the ID token alone); otherwise they come from userinfo, as many providers do.
    conformIdTokenClaims: appClients.length === 0,
    cookies: { keys: ['a-cookie-key-for-the-tests'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => {
        const a = accounts.get(sub) ?? {};
        return {
          sub,
          email: a.email ?? `${sub}@example.com`,
          email_verified: a.emailVerified ?? true,
          name: a.name ?? `Person ${sub}`,
          preferred_username: sub,
        };
      },
    }),
  });
  // Quiet: the provider reports every refused request as an event, and the tests make some.
  provider.on('server_error', () => {});
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
