/**
 * What the stores know of accounts: ids of names and names of ids. The user service owns the
 * accounts' tables and hands the stores this at the composition root (services.ts); a store
 * keeps its owners as user ids and shows names (docs/architecture.md, "Domains own their tables").
 */
export interface UserDirectory {
  /**
   * The id of the account `identity` names: its id, or its name (case-insensitive, as sign-in
   * matches), or with `email` also its email address. Null when there is none.
   */
  idOf(identity: string, options?: { email?: boolean }): Promise<string | null>;
  /** The account's name; null when it is gone. Answers without a promise when it knows. */
  nameOf(id: string): string | null | Promise<string | null>;
  /** The names of these accounts (ids of removed accounts are left out). */
  namesOf(ids: Iterable<string>): Promise<Map<string, string>>;
}
