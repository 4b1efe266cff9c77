import type { CacheProvider, SAML } from '@node-saml/node-saml';
import type { SamlConnectionConfig } from '../../../core/config.js';
import { isRoostError, type RoostError } from '../../../core/errors.js';
import { hashToken, randomToken } from '../../../core/ids.js';
import { parseInput } from '../../../core/validation.js';
import { isLocalRedirect, pageSignin, providerAccount, type ProviderOutcome } from '../../provider-ops.js';
import { signinHooked } from '../../user-hooks.js';
import { userErrors } from '../../user-errors.js';
import type { Caller, UserContext } from '../../user-context.js';
import type { User } from '../../user-repo.js';
import {
  REPLAY_WINDOW_MS,
  REQUEST_LIFETIME_MS,
  samlClient,
  samlProfileOf,
  type SamlEndpoints,
  type SamlProfile,
} from './saml-client.js';
import { samlErrors } from './saml-errors.js';
import {
  samlInputs,
  type SamlAnswer,
  type SamlConnectionFor,
  type SamlConnectionRef,
  type SamlFinish,
  type SamlStart,
} from './saml-inputs.js';
import { idpOf, type SamlIdp } from './saml-metadata.js';
import type { SamlRepo } from './saml-repo.js';

/** A connection as the sign-in page offers it. */
interface SamlConnectionInfo {
  connection: string;
  label: string;
}

export type SamlOps = {
  /** Starts a sign-in: the IdP's address with the AuthnRequest, and the RelayState for the browser's cookie. */
  samlStart(caller: Caller, input: SamlStart): Promise<{ url: string; relay: string }>;
  /** The ACS: checks the IdP's answer and keeps its profile for the browser's next step (`relay`). */
  samlAnswer(caller: Caller, input: SamlAnswer): Promise<{ relay: string }>;
  /** Ends the sign-in the ACS answered, in the browser that started it: a session, a challenge, a pending account. */
  samlFinish(caller: Caller, input: SamlFinish): Promise<ProviderOutcome>;
  /** Roost's metadata as this connection's service provider (XML). */
  samlMetadata(caller: Caller, input: SamlConnectionRef): Promise<string>;
  /** The connection of a mail address's domain ("sign in with your company"). */
  samlConnectionFor(caller: Caller, input: SamlConnectionFor): Promise<SamlConnectionInfo>;
  /** Whether some connection is found by a mail domain: the sign-in page then offers "sign in with your company". */
  samlByDomain(caller: Caller): Promise<boolean>;
};

/** Where an IdP-initiated sign-in ends: the sign-in page sends a signed-in visitor on. */
const UNSOLICITED_REDIRECT = '/users/signin';

/** node-saml's refusals (its `Error` messages) in Roost's words: what was wrong, for the person and the log. */
const REFUSALS: readonly [RegExp, string, string][] = [
  [/audience/i, 'audience', 'it is meant for another service (audience)'],
  // node-saml's "SAML assertion not yet valid", "… expired", "… too old", and the subject
  // confirmation's times failing ("No valid subject confirmation found").
  [/not yet valid|expired|too old|valid subject confirmation/i, 'expired', 'it is not valid at this time'],
  [/issuer/i, 'issuer', 'it comes from another identity provider (issuer)'],
  [/recipient/i, 'recipient', 'it was sent for another address (recipient)'],
  [/signature|signed/i, 'signature', 'its signature is not the identity provider’s'],
];

function refusal(err: unknown): RoostError {
  if (isRoostError(err)) return err;
  const text = err instanceof Error ? err.message : '';
  if (/InResponseTo/i.test(text))
    return samlErrors.saml_flow_failed({ cause: err, fields: [['SAMLResponse', 'flow']] });
  const [, reason, words] = REFUSALS.find(([pattern]) => pattern.test(text)) ?? [
    null,
    'invalid',
    'it is not a well-formed, signed SAML response',
  ];
  return samlErrors.saml_refused({
    cause: err,
    message: `The identity provider's answer was not accepted: ${words}.`,
    fields: [['SAMLResponse', reason]],
  });
}

/** The IdP's group values that `groups` maps, as Roost groups (an own key only: never `__proto__`'s). */
function mappedGroups(connection: SamlConnectionConfig, values: readonly string[]): string[] {
  return values.filter((v) => Object.hasOwn(connection.groups, v)).map((v) => connection.groups[v] as string);
}

/**
 * SAML 2.0 single sign-on, Roost the service provider (docs/users.md, "SAML single sign-on"),
 * over node-saml (saml-client.ts). `samlStart` keeps a flow by the hash of a random RelayState
 * with the AuthnRequest's id (saml-repo.ts; the browser's cookie holds the RelayState) and sends
 * the browser to the IdP. The IdP posts its answer to the ACS (`samlAnswer`): node-saml checks the
 * signature, issuer, audience, times (by Roost's clock) and that InResponseTo names a request of
 * ours; then the assertion's id is counted against replay (`throttle_counts`, as ID tokens are),
 * and the profile is written into the request's flow, whose RelayState must be the answer's. The
 * browser's cookie is SameSite Lax, which the IdP's cross-site POST does not carry, so the ACS
 * sends the browser on to a GET (`samlFinish`), where the cookie must hold the RelayState (so an
 * answer posted to another person's browser signs nobody in there) and the flow is taken once.
 * The account is then found or made as a provider's (provider-ops.ts `providerAccount`, linked as
 * `saml:<connection>`), its mapped groups set, and the second factor asked as after a password.
 * An answer with no InResponseTo (IdP-initiated) is refused unless the connection takes them.
 */
export function samlOps(ctx: UserContext, repo: SamlRepo, publicUrl: string, connections: SamlConnectionConfig[]) {
  // Each IdP's facts, read once (a connection's metadata XML is parsed here: a bad one stops the start).
  const idps = new Map(connections.map((c) => [c.id, idpOf(c)]));
  // Every connection has its entry, made just above from the same list.
  const idpOfConnection = (c: SamlConnectionConfig): SamlIdp => idps.get(c.id) as SamlIdp;

  function connectionOf(id: string): SamlConnectionConfig {
    const connection = connections.find((c) => c.id === id);
    if (!connection) throw samlErrors.unknown_saml_connection({ fields: [['connection', 'unknown']] });
    return connection;
  }

  const endpointsOf = (c: SamlConnectionConfig): SamlEndpoints => ({
    entityId: c.sp.entityId ?? `${publicUrl}/users/saml/${c.id}`,
    acsUrl: c.sp.acsUrl ?? `${publicUrl}/users/saml/${c.id}/acs`,
  });

  /**
   * node-saml's store of request ids, over the flows: it asks whether a request is ours before its
   * checks; the flows are kept by `samlStart` and used once by `answer` (saml-repo.ts), so its
   * own writes do nothing. The expiry is the flow's, by Roost's clock: a good one is "made now".
   */
  const requestsOf = (connection: SamlConnectionConfig): CacheProvider => ({
    saveAsync: async () => null,
    removeAsync: async () => null,
    async getAsync(requestId) {
      const flow = await repo.pendingRequest(requestId, ctx.clock.now());
      return flow?.connection === connection.id ? new Date().toISOString() : null;
    },
  });

  const clientOf = (connection: SamlConnectionConfig, requestId?: string): SAML =>
    samlClient(
      connection,
      idpOfConnection(connection),
      endpointsOf(connection),
      requestsOf(connection),
      () => ctx.clock.now(),
      () => requestId ?? '',
    );

  /** Counts the assertion's use: true the first time. */
  async function firstUse(connection: SamlConnectionConfig, assertionId: string): Promise<boolean> {
    const now = ctx.clock.now();
    const key = `saml:${hashToken(`${connection.id} ${assertionId}`)}`;
    return (await ctx.repo.countAttempt(key, now, now - REPLAY_WINDOW_MS)) === 1;
  }

  /** Puts the account into the groups its assertion maps to, out of the mapped groups it no longer has. */
  async function syncGroups(connection: SamlConnectionConfig, user: User, profile: SamlProfile): Promise<User> {
    const managed = new Set(Object.values(connection.groups));
    if (managed.size === 0) return user;
    const groups = [
      ...new Set([...user.groups.filter((g) => !managed.has(g)), ...mappedGroups(connection, profile.groups)]),
    ];
    if (groups.length === user.groups.length && groups.every((g) => user.groups.includes(g))) return user;
    await ctx.repo.update(user.id, { groups });
    return (await ctx.repo.byId(user.id)) ?? user;
  }

  return {
    async samlStart(_caller, input) {
      const { connection: id, redirect } = parseInput(samlInputs.samlStart, input);
      const connection = connectionOf(id);
      if (!isLocalRedirect(redirect)) throw userErrors.redirect_not_allowed({ fields: [['redirect', 'not_allowed']] });
      // An NCName, as SAML's ids must be: a letter first.
      const requestId = `roost_${randomToken()}`;
      const relay = randomToken();
      await repo.putFlow({
        relayHash: hashToken(relay),
        requestId,
        connection: connection.id,
        redirect,
        expires: ctx.clock.now() + REQUEST_LIFETIME_MS,
      });
      const url = await clientOf(connection, requestId).getAuthorizeUrlAsync(relay, undefined, {});
      return { url, relay };
    },

    async samlAnswer(_caller, input) {
      const { connection: id, SAMLResponse, RelayState } = parseInput(samlInputs.samlAnswer, input);
      const connection = connectionOf(id);
      let profile: SamlProfile;
      try {
        const checked = await clientOf(connection).validatePostResponseAsync({ SAMLResponse });
        if (!checked.profile) throw new Error('no assertion (a passive sign-in refused)');
        // node-saml checks `idpIssuer` on logout messages only: the signed assertion's Issuer is checked here.
        if (checked.profile.issuer !== idpOfConnection(connection).entityId)
          throw new Error('the assertion has another issuer');
        profile = samlProfileOf(connection, checked.profile);
        // Nor the Recipient (SAML profiles 4.1.4.3: the bearer confirmation names the ACS it is for).
        if (profile.recipients.some((r) => r !== endpointsOf(connection).acsUrl))
          throw new Error('the assertion is for another recipient');
      } catch (err) {
        throw refusal(err);
      }
      if (connection.requireEncryption && !profile.encrypted)
        throw samlErrors.saml_refused({
          message: "The identity provider's answer was not accepted: its assertion is not encrypted.",
          fields: [['SAMLResponse', 'not_encrypted']],
        });
      if (!profile.subject || profile.subject.length > 255 || !profile.assertionId)
        throw refusal(new Error('no NameID or assertion id'));
      if (!(await firstUse(connection, profile.assertionId)))
        throw samlErrors.saml_replayed({ fields: [['SAMLResponse', 'used']] });
      const now = ctx.clock.now();
      if (profile.inResponseTo !== null) {
        const relay = RelayState ?? '';
        const answered = await repo.answer(
          profile.inResponseTo,
          hashToken(relay),
          connection.id,
          JSON.stringify(profile),
          now,
        );
        if (!answered) throw samlErrors.saml_flow_failed({ fields: [['RelayState', 'invalid']] });
        return { relay };
      }
      if (!connection.idpInitiated) throw samlErrors.saml_unsolicited();
      const relay = randomToken();
      const flow = {
        relayHash: hashToken(relay),
        requestId: null,
        connection: connection.id,
        redirect: UNSOLICITED_REDIRECT,
        expires: now + REQUEST_LIFETIME_MS,
      };
      await repo.putFlow(flow, JSON.stringify(profile));
      return { relay };
    },

    async samlFinish(caller, input) {
      const { connection: id, relay, browserRelay } = parseInput(samlInputs.samlFinish, input);
      const connection = connectionOf(id);
      const taken = await repo.take(hashToken(relay), ctx.clock.now());
      // A sign-in started here ends only in the browser that started it (its cookie; login CSRF).
      if (taken?.flow.connection !== connection.id || (taken.flow.requestId !== null && browserRelay !== relay))
        throw samlErrors.saml_flow_failed({ fields: [['relay', 'invalid']] });
      const { redirect } = taken.flow;
      const profile = JSON.parse(taken.profile) as SamlProfile;
      const domain = profile.email?.split('@').pop()?.toLowerCase() ?? '';
      try {
        // The sign-in's hooks (user-hooks.ts) see the address the IdP vouches for, before any account is made.
        await signinHooked(ctx, caller.principal, 'saml', 'finish', profile.email ?? '');
        const account = await providerAccount(
          ctx,
          caller,
          { id: `saml:${connection.id}`, signup: connection.signup },
          {
            subject: profile.subject,
            email: profile.email,
            // The company's IdP vouches for the addresses of its own domains only.
            emailVerified: connection.domains.includes(domain),
            username: profile.username,
            realname: profile.realname,
          },
        );
        return await pageSignin(ctx, caller, await syncGroups(connection, account, profile), redirect, 'saml');
      } catch (err) {
        if (!isRoostError(err)) throw err;
        return { kind: 'failed', error: err, redirect };
      }
    },

    async samlMetadata(_caller, input) {
      const connection = connectionOf(parseInput(samlInputs.samlMetadata, input).connection);
      const cert = connection.sp.cert ?? null;
      // node-saml names the document by the client's id maker, which outside a sign-in gives '':
      // an empty ID is no xs:ID (an NCName), so the metadata would fail a check against SAML's schema.
      return clientOf(connection, `roost_metadata_${connection.id}`).generateServiceProviderMetadata(cert, cert);
    },

    async samlConnectionFor(_caller, input) {
      const { email } = parseInput(samlInputs.samlConnectionFor, input);
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      const connection = connections.find((c) => c.domains.includes(domain));
      if (!connection) throw samlErrors.saml_no_connection({ fields: [['email', 'unknown']] });
      return { connection: connection.id, label: connection.name ?? connection.id };
    },

    async samlByDomain(_caller) {
      return connections.some((c) => c.domains.length > 0);
    },
  } satisfies SamlOps;
}
