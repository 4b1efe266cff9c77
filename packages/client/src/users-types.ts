import type { Order, Page } from './shared-types.js';

/** The signed-in user (`identity`), also the entries of `identities`. `reference` is the original's name of `id`. */
export interface Identity {
  name: string;
  realname: string;
  email: string;
  id: string;
  reference: string;
}

/** `name`: under the identity policy `email`, `name` holds the email. */
export interface NameAnswer {
  name: string;
  realname: string;
}

/**
 * `profile`: the signed-in user's profile. Times are `YYYY/MM/DD hh:mm:ss`
 * (UTC); `activity` is `""` before the first sign-in.
 */
export interface Profile extends Identity {
  /** Always a string: an object given to `update` is kept as its JSON text. */
  data: string;
  activity: string;
  notify: boolean;
  active: boolean;
  pending: boolean;
  groups: string[];
}

/** A user as administrators see it (`getUser`, `list`): the profile plus its state and creation time. */
export interface UserRecord extends Profile {
  state: 'active' | 'pending' | 'disabled';
  created: string;
}

/** `getUser`. */
export type UserAnswer = UserRecord & { result: true };

/** `token`: `expires` in milliseconds since the epoch. */
export interface TokenAnswer {
  result: true;
  token: string;
  expires: number;
}

/** `signupUid`: the generated 30-character name. */
export interface SignupUidAnswer {
  result: true;
  name: string;
}

/** Profile fields that sign-ups and `update` take. `data` may be an object: it is stored as its JSON text. */
export interface ProfileFields {
  realname?: string;
  notify?: boolean;
  data?: string | Record<string, unknown>;
}

export type ReviewAction = 'accept' | 'optin' | 'activate' | 'reject' | 'disable';

/**
 * What `setUser` may change: `active: false` disables (and signs
 * out), `pending: true` puts the account back into review.
 */
export interface UserValues extends ProfileFields {
  name?: string;
  email?: string;
  groups?: string[];
  password?: string;
  active?: boolean;
  pending?: boolean;
}

/** Search and paging of `list` and `identities`; `name`, `email` and `search` match substrings. */
export interface UserSearch {
  active?: boolean;
  pending?: boolean;
  name?: string;
  email?: string;
  search?: string;
  group?: string;
  start?: number;
  size?: number;
  sort?: 'name' | 'email' | 'realname' | 'activity' | 'created';
  order?: Order;
}

/** A page of users (`list`: {@link UserRecord}; `identities`: {@link Identity}). */
export interface UsersPage<T> extends Page {
  users: T[];
}
