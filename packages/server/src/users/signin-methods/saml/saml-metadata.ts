import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import type { SamlConnectionConfig } from '../../../core/config.js';

/** What Roost needs of an IdP: its entity id, its single sign-on URL (HTTP-Redirect), its certificates. */
export interface SamlIdp {
  entityId: string;
  ssoUrl: string;
  certs: string[];
}

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** A base64 DER certificate of a KeyDescriptor as PEM, checked by node:crypto (it throws on anything else). */
function pem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  const text = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  return new X509Certificate(text).toString();
}

/**
 * The IdP facts of an IdP's metadata XML (SAML metadata 2.0, as Entra ID, Okta, ADFS and Keycloak
 * publish it): the EntityDescriptor's `entityID`, the IDPSSODescriptor's SingleSignOnService of
 * the HTTP-Redirect binding, and the certificates of its KeyDescriptors for signing (or of no
 * stated use). Read once at start, with @xmldom/xmldom, which resolves no external entity; a
 * metadata without one of them stops the start with the connection's id in the message.
 */
function idpFromMetadata(id: string, xml: string): SamlIdp {
  const fail = (what: string) => new Error(`users.saml "${id}": the IdP metadata has no ${what}`);
  const doc = new DOMParser({ errorHandler: { error: () => {}, fatalError: () => {} } }).parseFromString(
    xml,
    'text/xml',
  );
  const entity = doc.getElementsByTagNameNS(MD, 'EntityDescriptor')[0];
  const entityId = entity?.getAttribute('entityID');
  if (!entity || !entityId) throw fail('EntityDescriptor with an entityID');
  const sso = entity.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!sso) throw fail('IDPSSODescriptor');
  const services = Array.from(sso.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const ssoUrl = services.find((s) => s.getAttribute('Binding') === REDIRECT)?.getAttribute('Location');
  if (!ssoUrl) throw fail('SingleSignOnService of the HTTP-Redirect binding');
  const certs = Array.from(sso.getElementsByTagNameNS(MD, 'KeyDescriptor'))
    .filter((k) => (k.getAttribute('use') || 'signing') === 'signing')
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')))
    .map((c) => pem(c.textContent ?? ''));
  if (certs.length === 0) throw fail('signing certificate');
  return { entityId, ssoUrl, certs };
}

/** The IdP of a connection: its three facts as configured, or read from its metadata. */
export function idpOf(connection: SamlConnectionConfig): SamlIdp {
  const { idp } = connection;
  if (idp.metadata !== undefined) return idpFromMetadata(connection.id, idp.metadata);
  if (!idp.entityId || !idp.ssoUrl || !idp.certs) throw new Error(`users.saml "${connection.id}": no IdP`);
  return { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certs: [...idp.certs] };
}
