/**
 * `/ServiceProviderConfig` (RFC 7643 §5): what this server supports, read by an identity
 * provider before it provisions. The figures are those of scim-lists.ts and scim-routes.ts.
 */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 1000 },
    changePassword: { supported: true },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'API key',
        description: 'A Roost API key with the scope scim:*:read,write, sent as Authorization: Bearer roost_….',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}
