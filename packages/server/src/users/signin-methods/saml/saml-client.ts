import { SAML, ValidateInResponseTo, type CacheProvider, type Profile, type SamlConfig } from '@node-saml/node-saml';
import type { SamlConnectionConfig } from '../../../core/config.js';
import type { SamlIdp } from './saml-metadata.js';

/** How long the IdP may take to send the browser back, and an AuthnRequest's id stays good. */
export const REQUEST_LIFETIME_MS = 10 * 60_000;
/** How far the IdP's clock may be from Roost's (SAML's times are the IdP's). */
const CLOCK_SKEW_MS = 60_000;
/**
 * The longest an assertion is taken after its IssueInstant, whatever its NotOnOrAfter says: the
 * replay check remembers an assertion's id for REPLAY_WINDOW_MS, longer than it can be good.
 */
const ASSERTION_MAX_AGE_MS = 30 * 60_000;
export const REPLAY_WINDOW_MS = ASSERTION_MAX_AGE_MS + 2 * CLOCK_SKEW_MS;

/** Where a connection is, as Roost names itself to the IdP (its entity id and ACS URL). */
export interface SamlEndpoints {
  entityId: string;
  acsUrl: string;
}

/**
 * node-saml's SAML with Roost's clock (core/clock.ts; tests pass their own): its checks of
 * NotBefore, NotOnOrAfter and the assertion's age ask `checkTimestampsValidityError`, which is
 * handed the process's time; this one hands it Roost's.
 */
class ClockedSaml extends SAML {
  readonly #now: () => number;

  constructor(options: SamlConfig, now: () => number) {
    super(options);
    this.#now = now;
  }

  protected override checkTimestampsValidityError(
    _processNow: number,
    notBefore: string,
    notOnOrAfter: string,
    maxTimeLimitMs?: number,
  ): Error | null {
    return super.checkTimestampsValidityError(this.#now(), notBefore, notOnOrAfter, maxTimeLimitMs);
  }
}

/**
 * The node-saml instance of a connection (docs/decisions.md, "SAML single sign-on"): the IdP's
 * certificates, entity id and single sign-on URL (`idp`, saml-metadata.ts), Roost's entity id as the audience, signed
 * assertions required (or a signed response around them), the SP's key to sign AuthnRequests and
 * decrypt assertions, and InResponseTo checked when present against `requests`, the database's
 * flows (saml-repo.ts): several processes share them. `requestId` is the id the next
 * AuthnRequest gets, chosen by the caller so that its flow can be kept before the browser leaves.
 */
export function samlClient(
  connection: SamlConnectionConfig,
  idp: SamlIdp,
  endpoints: SamlEndpoints,
  requests: CacheProvider,
  now: () => number,
  requestId: () => string = () => '',
): SAML {
  const { sp } = connection;
  return new ClockedSaml(
    {
      idpCert: [...idp.certs],
      idpIssuer: idp.entityId,
      entryPoint: idp.ssoUrl,
      issuer: endpoints.entityId,
      audience: endpoints.entityId,
      callbackUrl: endpoints.acsUrl,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      ...(sp.privateKey ? { privateKey: sp.privateKey, publicCert: sp.cert, decryptionPvk: sp.privateKey } : {}),
      // The IdP picks the NameID's format; Roost keys the account by the NameID and the connection.
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      maxAssertionAgeMs: ASSERTION_MAX_AGE_MS,
      validateInResponseTo: ValidateInResponseTo.ifPresent,
      // The flows keep their own expiry by Roost's clock (saml-repo.ts); this one is only node-saml's.
      requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS + CLOCK_SKEW_MS,
      cacheProvider: requests,
      generateUniqueId: requestId,
    },
    now,
  );
}

/** A checked assertion's subject and attributes, as the account is made or found by them. */
export interface SamlProfile {
  /** The NameID (the IdP's id of the person). */
  subject: string;
  email: string | null;
  realname: string | null;
  username: string | null;
  /** The IdP's group values (all of them; the connection's `groups` picks the mapped ones). */
  groups: string[];
  /** The assertion's ID, for the replay check. */
  assertionId: string;
  /** The answer's InResponseTo: null when the IdP sent it unasked. */
  inResponseTo: string | null;
  /** Whether the assertion came encrypted. */
  encrypted: boolean;
  /** The subject confirmations' Recipients: where the IdP meant the assertion to be posted. */
  recipients: string[];
}

/** The xml2js shape of the signed assertion's parts Roost reads beyond node-saml's profile. */
interface AssertionParts {
  Assertion?: {
    $?: { ID?: unknown };
    Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { Recipient?: unknown } }[] }[] }[];
  };
}

/** An attribute's values as texts (node-saml answers a text, a list, or an element's object). */
function values(profile: Profile, name: string | undefined): string[] {
  if (!name) return [];
  const value = (profile.attributes as Record<string, unknown> | undefined)?.[name];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string' && v.trim().length > 0).map((v) => v.trim());
}

/** The first text of an attribute, or null. */
const first = (profile: Profile, name: string | undefined) => values(profile, name)[0] ?? null;

/** What Roost reads of a checked node-saml profile, by the connection's attribute names. */
export function samlProfileOf(connection: SamlConnectionConfig, profile: Profile): SamlProfile {
  const names = connection.attributes;
  const assertion = profile.getAssertion?.() as AssertionParts | undefined;
  const assertionId = assertion?.Assertion?.$?.ID;
  const confirmations = assertion?.Assertion?.Subject?.[0]?.SubjectConfirmation ?? [];
  const recipients = confirmations
    .flatMap((c) => c.SubjectConfirmationData ?? [])
    .map((d) => d.$?.Recipient)
    .filter((r): r is string => typeof r === 'string');
  const nameIdIsEmail = profile.nameIDFormat === 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
  return {
    subject: profile.nameID,
    email: first(profile, names.email) ?? (nameIdIsEmail ? profile.nameID : null),
    realname: first(profile, names.realname),
    username: first(profile, names.username),
    groups: values(profile, names.groups),
    assertionId: typeof assertionId === 'string' ? assertionId : '',
    inResponseTo: typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null,
    encrypted: /<(\w+:)?EncryptedAssertion[\s>]/.test(profile.getSamlResponseXml?.() ?? ''),
    recipients,
  };
}
