/** Answer shapes every service shares. Written out by hand from docs/users.md, datastore.md and filestore.md. */

/** `ping`: `{result: 1}`. */
export interface PingAnswer {
  result: 1;
}

/** An operation that succeeded and has nothing else to say. */
export interface DoneAnswer {
  result: true;
}

/** `allowed`: `result` (every asked permission held) plus one boolean per asked permission. */
export type AllowedAnswer = { result: boolean } & { [permission: string]: boolean };

/** One permission entry of a service: the groups holding the permission. */
export interface PermissionEntry {
  permission: string;
  groups: string[];
}

/** A change of one permission entry (`setPermissions`); `action` defaults to `add`. */
export interface PermissionChange {
  permission: string;
  groups: string | string[];
  action?: 'add' | 'replace' | 'revoke';
}

/** `getPermissions` and `setPermissions`: every entry of the service, after the change. */
export interface PermissionsAnswer {
  result: true;
  permissions: PermissionEntry[];
}

/** Ascending (`<`, the default) or descending (`>`). */
export type Order = '<' | '>';

/** Paging of lists: `start` is 1-based, `total` counts every match. */
export interface Page {
  start: number;
  size: number;
  total: number;
}

/** Paging parameters of lists. */
export interface Paging {
  start?: number;
  size?: number;
  order?: Order;
}
