/** Row types of SCIM provisioning's tables (scim/; migration 2026-12-07-01). */

/** An account an identity provider provisioned over SCIM (scim/scim-repo.ts); the account: `users`' row of its id. */
interface ScimUsersTable {
  user_id: string;
  user_name: string;
  user_name_key: string;
  external_id: string | null;
  /** The SCIM attributes Roost keeps as given (name, emails, phone numbers, …), JSON. */
  attributes: string;
  version: number;
  created: number;
  modified: number;
  /** Until when a process changes the account's groups (scim/scim-context.ts); null: free. */
  lease: number | null;
}

/** A group provisioned over SCIM (scim/scim-repo.ts): its display name is the Roost group of its members. */
interface ScimGroupsTable {
  id: string;
  display_name: string;
  display_key: string;
  external_id: string | null;
  version: number;
  created: number;
  modified: number;
}

export interface ScimTables {
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
}
