import type { RawBuilder, SqlBool } from 'kysely';
import { keyAllows, type KeyAccess } from '../core/api-keys.js';
import { administers } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import type { RuleOperation } from './collection-rules.js';
import type { CollectionState } from './collection-state.js';
import { constantAnswer, filterSql, type QueryContext } from './query/index.js';

/**
 * What a collection's rule lets a caller do (collection-rules.ts): nothing, everything, or what a
 * condition on the record allows, as SQL on the record's row (alias `r`). The condition goes
 * into the query itself (a list's WHERE, a get's, an update's), so a page, its total and its
 * cursors never count or show what the caller may not read.
 */
export type Access =
  | { readonly allowed: false }
  | { readonly allowed: true; readonly where: RawBuilder<SqlBool> | null };

const DENIED: Access = Object.freeze({ allowed: false });
const EVERYTHING: Access = Object.freeze({ allowed: true, where: null });

/**
 * Makes a rule's condition: the filter language compiled for this caller and this write's body;
 * null when the rule holds whatever the record (it reads none, and is true for this caller).
 */
export type RuleCompiler = (
  state: CollectionState,
  operation: RuleOperation,
  context: { principal: Principal; body: Record<string, unknown> | null },
  dialect: Dialect,
) => RawBuilder<SqlBool> | null;

/** What each rule's operation is to an API key's scopes. */
const RULE_KEY_ACCESS: Readonly<Record<RuleOperation, KeyAccess>> = {
  list: 'read',
  view: 'read',
  create: 'write',
  update: 'write',
  delete: 'write',
};

export function accessFor(
  state: CollectionState,
  operation: RuleOperation,
  principal: Principal,
  body: Record<string, unknown> | null,
  dialect: Dialect,
  compile: RuleCompiler,
): Access {
  const rule = state.rules[operation];
  if (rule !== null && rule.trim() === '') return EVERYTHING;
  // An API key's grants are its scopes (core/api-keys.ts), never a rule about accounts: it is none.
  if (principal.key)
    return keyAllows(principal.key, 'collection', state.name, RULE_KEY_ACCESS[operation]) ? EVERYTHING : DENIED;
  // Administrators pass every other rule: the backend's permission, decided by core/grants.ts.
  if (administers(principal)) return EVERYTHING;
  if (rule === null) return DENIED;
  const where = compile(state, operation, { principal, body }, dialect);
  return where ? { allowed: true, where } : EVERYTHING;
}

/** The context a rule or filter runs in: the caller, the write's body, the time (query/ `QueryContext`). */
export function queryContext(principal: Principal, body: Record<string, unknown> | null, now: number): QueryContext {
  const auth =
    principal.userId === null ? null : { id: principal.userId, name: principal.name ?? '', groups: principal.groups };
  return { auth, body, now: new Date(now) };
}

/**
 * The rules' compiler: the rule checked with its collection's version (collection-state.ts), as SQL
 * on alias `r`. A rule without a body (`list`, `view`, ...) is the same SQL for a caller until its
 * collection's version or the caller changes (a session keeps one principal, and gets a new one
 * when its groups change: users/sessions.ts), so it is compiled once per version, operation and
 * principal; a rule that reads the time (any `@` but `@request`, as realtime/families/
 * record-family.ts tells it) is compiled on every call. A page asked its list rule and its
 * expansions' view rules anew each time: about a tenth of a filtered page's CPU time
 * (bench/RESULTS.md, sixteenth session). A rule that reads no field of the record
 * (`@request.auth.id != null`) and holds for the caller is no condition at all: its queries go
 * without it, and its gets and expansions read through the record cache (records-repo.ts). One
 * that does not hold stays SQL (a false condition), so a list still answers an empty page.
 */
export function ruleCompiler(now: () => number): RuleCompiler {
  const kept = new WeakMap<CollectionState, Map<RuleOperation, WeakMap<Principal, RawBuilder<SqlBool> | null>>>();
  return (state, operation, context, dialect) => {
    const checked = state.ruleFilters[operation];
    if (!checked) throw new Error(`no checked rule for ${state.name} ${operation}`);
    const compile = () => {
      const queryOf = queryContext(context.principal, context.body, now());
      if (constantAnswer(checked, queryOf) === true) return null;
      return filterSql(checked, { dialect, alias: 'r', context: queryOf });
    };
    if (context.body !== null || /@(?!request\b)/.test(state.rules[operation] ?? '')) return compile();
    const operations = kept.get(state) ?? new Map<RuleOperation, WeakMap<Principal, RawBuilder<SqlBool> | null>>();
    if (!kept.has(state)) kept.set(state, operations);
    const byPrincipal = operations.get(operation) ?? new WeakMap<Principal, RawBuilder<SqlBool> | null>();
    if (!operations.has(operation)) operations.set(operation, byPrincipal);
    const known = byPrincipal.get(context.principal);
    if (known !== undefined) return known;
    const where = compile();
    byPrincipal.set(context.principal, where);
    return where;
  };
}
