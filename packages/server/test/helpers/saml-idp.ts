import { execFile } from 'node:child_process';
import { createPublicKey, createVerify, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { encrypt } from 'xml-encryption';

/** A key pair and its self-signed certificate (PEM), as an IdP's or a service provider's. */
export interface KeyPair {
  privateKey: string;
  cert: string;
}

const run = promisify(execFile);

/** A new RSA key and a self-signed certificate for it, by the `openssl` command (node:crypto makes no certificates). */
export async function selfSignedPair(name: string): Promise<KeyPair> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-saml-'));
  try {
    const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    await run(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`].concat([
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ]),
    );
    return { privateKey: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Who the IdP says signs in, and how it words the answer (each test changes what it tests). */
interface SamlAnswerOptions {
  nameId: string;
  nameIdFormat?: string;
  /** Attributes by name, each with its values. */
  attributes?: Record<string, string[]>;
  /** The Audience (default: the SP's entity id the request named). */
  audience?: string;
  /** The Issuer (default: the IdP's entity id). */
  issuer?: string;
  /** The bearer confirmation's Recipient (default: the ACS URL the request named). */
  recipient?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** InResponseTo: the request's id by default; null leaves it out (an answer sent unasked). */
  inResponseTo?: string | null;
  /** Encrypt the signed assertion to this certificate (the SP's). */
  encryptTo?: string;
  /** Sign with this key instead of the IdP's own (a forger's). */
  signWith?: KeyPair;
  /** Changes the signed answer's XML (a tamperer). */
  tamper?: (xml: string) => string;
}

/** An AuthnRequest the IdP received. */
interface ReceivedRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  relayState: string | null;
  /** Whether it came signed, and the signature held against `spCert` (when the IdP was told it). */
  signed: boolean;
  signatureValid: boolean | null;
  xml: string;
}

/** The IdP's answer, as its auto-posting form would post it to the ACS. */
export interface PostedAnswer {
  acsUrl: string;
  SAMLResponse: string;
  RelayState: string | null;
  /** The response's XML, for the tests that look at or change it. */
  xml: string;
}

export interface TestSamlIdp {
  /** Its entity id and single sign-on URL (HTTP-Redirect binding), for Roost's `idp`. */
  entityId: string;
  ssoUrl: string;
  keys: KeyPair;
  /** Its metadata XML (SAML metadata 2.0), as IdPs publish it. */
  metadata: string;
  /** Who the next AuthnRequest signs in, and how (the IdP would ask the person; this one just answers). */
  next: SamlAnswerOptions;
  /** The SP's certificate, to check signed AuthnRequests against. */
  spCert: string | null;
  /** The requests received, newest last. */
  requests: ReceivedRequest[];
  /** The answers its pages posted, newest last. */
  answers: PostedAnswer[];
  /** An answer the IdP sends unasked (IdP-initiated) to `acsUrl` for `audience`. */
  unsolicited(acsUrl: string, audience: string, options: SamlAnswerOptions): Promise<PostedAnswer>;
  close(): Promise<void>;
}

const SIGNATURE = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const samlId = () => `_${randomBytes(16).toString('hex')}`;
const attr = (xml: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(xml)?.[1] ?? '';

/** The assertion, signed by the IdP's key (xml-crypto, as IdPs sign: enveloped, exclusive C14N, SHA-256). */
function signedAssertion(issuer: string, keys: KeyPair, o: SamlAnswerOptions & { acsUrl: string }): string {
  const now = new Date();
  const notBefore = o.notBefore ?? new Date(now.getTime() - 60_000);
  const notOnOrAfter = o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
  const inResponseTo = o.inResponseTo ? ` InResponseTo="${xmlText(o.inResponseTo)}"` : '';
  const attributes = Object.entries(o.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${xmlText(name)}">${values
          .map((v) => `<saml:AttributeValue>${xmlText(v)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  const format = o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
  const xml =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${samlId()}" Version="2.0" ` +
    `IssueInstant="${now.toISOString()}"><saml:Issuer>${xmlText(o.issuer ?? issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${format}">${xmlText(o.nameId)}</saml:NameID>` +
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">' +
    `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${notOnOrAfter.toISOString()}" ` +
    `Recipient="${xmlText(o.recipient ?? o.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore.toISOString()}" NotOnOrAfter="${notOnOrAfter.toISOString()}">` +
    `<saml:AudienceRestriction><saml:Audience>${xmlText(o.audience ?? '')}</saml:Audience>` +
    '</saml:AudienceRestriction></saml:Conditions>' +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${samlId()}"><saml:AuthnContext>` +
    '<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport' +
    '</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>' +
    `<saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion>`;
  const signer = o.signWith ?? keys;
  const sig = new SignedXml({
    privateKey: signer.privateKey,
    publicCert: signer.cert,
    signatureAlgorithm: SIGNATURE,
    canonicalizationAlgorithm: EXC_C14N,
  });
  sig.addReference({
    xpath: "/*[local-name(.)='Assertion']",
    digestAlgorithm: SHA256,
    transforms: [ENVELOPED, EXC_C14N],
  });
  sig.computeSignature(xml, {
    location: { reference: "/*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
  });
  return sig.getSignedXml();
}

/** The assertion encrypted to `cert` (xml-encryption: AES-256-GCM, the key by RSA-OAEP). */
function encrypted(assertion: string, cert: string): Promise<string> {
  const options = {
    rsa_pub: createPublicKey(cert).export({ type: 'spki', format: 'pem' }).toString(),
    pem: cert,
    encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm' as const,
    keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p' as const,
    disallowEncryptionWithInsecureAlgorithm: true,
  };
  return new Promise((resolve, reject) =>
    encrypt(assertion, options, (err, result) =>
      err ? reject(err) : resolve(`<saml:EncryptedAssertion>${result}</saml:EncryptedAssertion>`),
    ),
  );
}

/**
 * A SAML 2.0 identity provider on 127.0.0.1 for the tests: it takes AuthnRequests by the
 * HTTP-Redirect binding at `/sso` (inflated, their id, issuer and ACS URL read, a signature
 * checked against the SP's certificate when it is given) and answers, by the HTTP-POST binding, a
 * page whose form posts the signed (and, when asked, encrypted) response to the ACS, as IdPs do.
 * Its key and certificate are made anew by `openssl`; the XML is signed by xml-crypto and
 * encrypted by xml-encryption, the libraries node-saml checks and decrypts with.
 */
export async function startSamlIdp(options: { host?: 'localhost' } = {}): Promise<TestSamlIdp> {
  const keys = await selfSignedPair('roost-test-idp');
  let server: Server | null = null;
  const idp: TestSamlIdp = {
    entityId: 'https://idp.test/saml',
    ssoUrl: '',
    keys,
    metadata: '',
    next: { nameId: 'nobody' },
    spCert: null,
    requests: [],
    answers: [],
    unsolicited: (acsUrl, audience, options) =>
      answer({ ...options, acsUrl, audience: options.audience ?? audience, inResponseTo: null }, null),
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };

  async function answer(o: SamlAnswerOptions & { acsUrl: string }, relayState: string | null): Promise<PostedAnswer> {
    let assertion = signedAssertion(idp.entityId, keys, o);
    if (o.encryptTo) assertion = await encrypted(assertion, o.encryptTo);
    const inResponseTo = o.inResponseTo ? ` InResponseTo="${xmlText(o.inResponseTo)}"` : '';
    let xml =
      '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ' +
      `xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${samlId()}" Version="2.0" ` +
      `IssueInstant="${new Date().toISOString()}" Destination="${xmlText(o.acsUrl)}"${inResponseTo}>` +
      `<saml:Issuer>${xmlText(o.issuer ?? idp.entityId)}</saml:Issuer>` +
      '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
      `${assertion}</samlp:Response>`;
    if (o.tamper) xml = o.tamper(xml);
    return { acsUrl: o.acsUrl, SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: relayState, xml };
  }

  /** The request of a Redirect binding's query, its signature checked over the query's own text. */
  function received(url: URL, rawQuery: string): ReceivedRequest {
    const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    const signature = url.searchParams.get('Signature');
    let signatureValid: boolean | null = null;
    if (signature && idp.spCert) {
      // SAML bindings 3.4.4.1: SAMLRequest, RelayState and SigAlg as they came, in that order.
      const part = (name: string) => rawQuery.split('&').find((p) => p.startsWith(`${name}=`));
      const signed = ['SAMLRequest', 'RelayState', 'SigAlg'].map(part).filter(Boolean).join('&');
      signatureValid = createVerify('RSA-SHA256').update(signed).verify(idp.spCert, signature, 'base64');
    }
    return {
      id: attr(xml, 'ID'),
      issuer: /<(?:\w+:)?Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '',
      acsUrl: attr(xml, 'AssertionConsumerServiceURL'),
      relayState: url.searchParams.get('RelayState'),
      signed: signature !== null,
      signatureValid,
      xml,
    };
  }

  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/sso') {
      res.writeHead(404).end();
      return;
    }
    const request = received(url, (req.url ?? '').split('?')[1] ?? '');
    idp.requests.push(request);
    const options = { audience: request.issuer, inResponseTo: request.id, ...idp.next, acsUrl: request.acsUrl };
    answer(options, request.relayState).then(
      (posted) => {
        idp.answers.push(posted);
        const field = (name: string, value: string) =>
          `<input type="hidden" name="${name}" value="${xmlText(value)}"/>`;
        const relay = posted.RelayState === null ? '' : field('RelayState', posted.RelayState);
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            '<!doctype html><html><head><title>Submitting Callback</title></head><body>' +
              `<form method="post" action="${xmlText(posted.acsUrl)}">${field('SAMLResponse', posted.SAMLResponse)}` +
              `${relay}<button>Continue</button></form>` +
              '<script>document.forms[0].submit()</script></body></html>',
          );
      },
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  // `localhost` (a browser test): another site than Roost's 127.0.0.1, so the IdP's post is cross-site
  // as in production; the server then listens on both loopbacks, which a browser may try in turn.
  const host = options.host ?? '127.0.0.1';
  const listen = (address: string) =>
    new Promise<void>((resolve, reject) => {
      server?.once('error', reject);
      server?.listen(0, address, () => {
        server?.off('error', reject);
        resolve();
      });
    });
  // Without IPv6 on the machine, `localhost` is 127.0.0.1 alone.
  if (host === 'localhost') await listen('::').catch(() => listen('127.0.0.1'));
  else await listen(host);
  idp.ssoUrl = `http://${host}:${(server.address() as AddressInfo).port}/sso`;
  const der = keys.cert.replace(/-----[A-Z ]+-----|\s/g, '');
  idp.metadata =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${idp.entityId}">` +
    '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
    '<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>' +
    `<ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" ' +
    'Location="http://127.0.0.1:9/post"/>' +
    '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" ' +
    `Location="${idp.ssoUrl}"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
  return idp;
}
