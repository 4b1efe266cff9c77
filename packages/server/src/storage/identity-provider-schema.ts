/** Row types of the identity provider's tables (identity-provider/; migration 2026-12-03-03). */

/** oidc-provider's models (identity-provider/idp-adapter.ts). */
interface IdpModelsTable {
  kind: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires: number | null;
  consumed: number | null;
}

/** The identity provider's keys, sealed (identity-provider/idp-keys.ts). */
interface IdpKeysTable {
  name: string;
  value: string;
  created: number;
}

/** An application registered on the admin page (identity-provider/idp-clients.ts). */
interface IdpClientsTable {
  client_id: string;
  name: string;
  secret: string | null;
  redirect_uris: string;
  post_logout_redirect_uris: string;
  created: number;
  created_by: string;
}

/** What an account allowed a client (identity-provider/idp-routes.ts). */
interface IdpConsentsTable {
  user_id: string;
  client_id: string;
  scope: string;
  resources: string;
  created: number;
}

export interface IdentityProviderTables {
  idp_models: IdpModelsTable;
  idp_keys: IdpKeysTable;
  idp_consents: IdpConsentsTable;
  idp_clients: IdpClientsTable;
}
