import { outOfScope } from '../core/api-keys.js';
import type { Clock } from '../core/clock.js';
import { RoostError, commonErrors, isRoostError, type FieldProblem } from '../core/errors.js';
import type { EventBus } from '../core/events.js';
import { NO_HOOKS, type HookRunner } from '../core/hooks.js';
import { newSortableId } from '../core/ids.js';
import type { Principal } from '../core/permissions.js';
import { refusal } from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import { accessFor, type Access, type RuleCompiler } from './collection-access.js';
import type { RuleOperation } from './collection-rules.js';
import type { CollectionState } from './collection-state.js';
import { collectionErrors } from './collections-errors.js';
import { recordEvent } from './record-events.js';
import { checkReferences, type ReferenceLookups } from './record-references.js';
import { uniqueIndexName } from './record-indexes.js';
import { isUniqueViolation, type RecordsRepo, type StoredRecord } from './records-repo.js';

/**
 * The writes and reads of one record (issue 39, item 2): each checks the collection's rule for
 * its operation (collection-access.ts), the data against the schema (record-validator.ts), and
 * tells its event once the write has committed (record-events.ts).
 */

/** A record as callers get it: the system fields, then its data's fields, side by side. */
export type RecordView = { id: string; created: string; updated: string; owner: string | null } & Record<
  string,
  unknown
>;

export function recordView(record: StoredRecord): RecordView {
  return Object.assign(
    { id: record.id, created: record.created, updated: record.updated, owner: record.owner },
    record.data,
  );
}

export interface RecordOpsDeps {
  repo: RecordsRepo;
  /**
   * The same queries where reads that may be a little stale run (a replica that has replayed the
   * caller's own writes, storage/replica-reads.ts): a get's and an expand's, never a write's. `repo` when absent.
   */
  readRepo?: RecordsRepo;
  dialect: Dialect;
  clock: Clock;
  events: EventBus;
  compile: RuleCompiler;
  /** The collection of that name, or the `unknown_collection` failure. */
  collection(name: string): CollectionState;
  /** Whether a collection of that name exists. */
  exists(name: string): boolean;
  /**
   * Whether the collection's schema changed since `state` (a write's version guard refused it,
   * records-repo.ts); its new state is then the one `collection` answers.
   */
  moved(state: CollectionState): Promise<boolean>;
  /** The accounts and files a record's references may name. */
  lookups: ReferenceLookups;
  /** The team's hooks (record-hooks.ts, docs/hooks.md); none by default. */
  hooks?: HookRunner;
}

/** What one write of a batch does. */
export type RecordWrite =
  | { action: 'create'; data: unknown }
  | { action: 'update' | 'replace'; id: string; data: unknown }
  | { action: 'delete'; id: string };

/** A refusal tells an anonymous caller that signing in could help (core/permissions.ts `refusal`). */
const SIGNED_IN = ['sys:authenticated'];

/** A write checked against a version of the schema that a migration has replaced: checked again. */
class SchemaMoved extends Error {}
/**
 * How often a write is checked again when the schema keeps changing under it. Each migration
 * that commits while a write waits moves it once (`moved` reads the new version before the next
 * try), so a write fails only after this many changes in a row: three changes sent back to back
 * moved a write three times on PostgreSQL (test/http/collection-records.test.ts).
 */
const ATTEMPTS = 10;

type Told = {
  kind: 'record.created' | 'record.updated' | 'record.deleted';
  collection: string;
  id: string;
  owner: string | null;
};

export function recordOps(deps: RecordOpsDeps) {
  const { dialect, clock, events, compile } = deps;
  const hooks = deps.hooks ?? NO_HOOKS;
  const readRepo = deps.readRepo ?? deps.repo;
  const now = () => new Date(clock.now()).toISOString();

  /** The caller's access for an operation; a refusal when it has none at all. */
  function allowed(
    state: CollectionState,
    operation: RuleOperation,
    principal: Principal,
    body: Record<string, unknown> | null,
  ): Extract<Access, { allowed: true }> {
    const access = accessFor(state, operation, principal, body, dialect, compile);
    if (!access.allowed)
      throw principal.key ? outOfScope(`${operation} on the collection ${state.name}`) : refusal(SIGNED_IN, principal);
    return access;
  }

  const bodyOf = (data: unknown) =>
    data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;

  /** Runs a write; a second equal value of a unique field is `not_unique`, naming the field. */
  async function unique<T>(state: CollectionState, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const index = isUniqueViolation(err);
      if (index === null) throw err;
      const field =
        state.fields.fields.find((f) => f.unique && index === uniqueIndexName(state.name, f.name))?.name ?? 'id';
      throw collectionErrors.not_unique({ fields: [[field, 'another record holds this value']], cause: err });
    }
  }

  const references = (
    state: CollectionState,
    repo: RecordsRepo,
    data: Record<string, unknown>,
    before: Record<string, unknown> | null,
  ) => checkReferences(state.references, data, before, repo, deps.lookups, deps.exists);

  async function write(repo: RecordsRepo, principal: Principal, collection: string, op: RecordWrite, told: Told[]) {
    const state = deps.collection(collection);
    switch (op.action) {
      case 'create': {
        const access = allowed(state, 'create', principal, bodyOf(op.data));
        const at = now();
        const { data, json } = state.check(op.data);
        if (state.references.length) await references(state, repo, data, null);
        const record: StoredRecord = { id: newSortableId(), owner: principal.userId, created: at, updated: at, data };
        // A create rule is a condition on the record as it would be stored: the insert itself
        // asks it (records-repo.ts `create`), so relations and the body are what it sees.
        const made = await unique(state, () => repo.create(collection, record, json, access.where, state.version));
        if (!made) {
          if (await deps.moved(state)) throw new SchemaMoved();
          throw refusal(SIGNED_IN, principal);
        }
        told.push(recordEvent('record.created', state, record));
        const view = recordView(record);
        await afterHooks('record.create', repo, principal, collection, view);
        return view;
      }
      case 'update':
      case 'replace': {
        const body = bodyOf(op.data);
        const access = allowed(state, 'update', principal, body);
        const current = await repo.get(collection, op.id, access.where ?? undefined);
        if (!current) throw collectionErrors.record_not_found({ fields: [['id', 'no such record']] });
        const merged = op.action === 'update' && body ? { ...current.data, ...body } : op.data;
        const { data } = state.check(merged);
        if (state.references.length) await references(state, repo, data, current.data);
        const updated = now();
        const done = await unique(state, () =>
          repo.update(collection, op.id, { data, updated }, access.where ?? undefined, state.version),
        );
        if (!done) {
          if (await deps.moved(state)) throw new SchemaMoved();
          throw collectionErrors.record_not_found({ fields: [['id', 'no such record']] });
        }
        told.push(recordEvent('record.updated', state, current));
        const view = recordView({ ...current, data, updated });
        await afterHooks('record.update', repo, principal, collection, view);
        return view;
      }
      case 'delete': {
        const access = allowed(state, 'delete', principal, null);
        const current = await repo.get(collection, op.id, access.where ?? undefined);
        if (!current || !(await repo.remove(collection, op.id, access.where ?? undefined)))
          throw collectionErrors.record_not_found({ fields: [['id', 'no such record']] });
        told.push(recordEvent('record.deleted', state, current));
        if (hooks.hasAfter('record.delete'))
          await afterHooks('record.delete', repo, principal, collection, recordView(current));
        return null;
      }
    }
  }

  /** Stores the after-hooks' jobs of a write in its transaction (`repo` on it: core/hooks.ts `after`). */
  async function afterHooks(
    point: 'record.create' | 'record.update' | 'record.delete',
    repo: RecordsRepo,
    caller: Principal,
    collection: string,
    record: RecordView,
  ): Promise<void> {
    if (hooks.hasAfter(point)) await hooks.after(point, { point, caller, collection, record }, repo.db);
  }

  /**
   * The before-hooks of a write (docs/hooks.md), before its transaction: they may change its data
   * or refuse it; the rule and the schema then check what they leave. A body that is no object
   * reaches no hook: the schema check refuses it as it is.
   */
  async function hooked(principal: Principal, collection: string, op: RecordWrite): Promise<RecordWrite> {
    switch (op.action) {
      case 'create': {
        const input = bodyOf(op.data);
        if (!hooks.has('record.create') || !input) return op;
        const ctx = await hooks.before('record.create', {
          point: 'record.create',
          caller: principal,
          collection,
          input,
        });
        return { action: 'create', data: ctx.input };
      }
      case 'update':
      case 'replace': {
        const input = bodyOf(op.data);
        if (!hooks.has('record.update') || !input) return op;
        const context = { point: 'record.update' as const, caller: principal, collection, id: op.id, input };
        const ctx = await hooks.before('record.update', context);
        return { action: op.action, id: op.id, data: ctx.input };
      }
      case 'delete': {
        if (!hooks.has('record.delete')) return op;
        const context = {
          point: 'record.delete' as const,
          caller: principal,
          collection,
          id: op.id,
          input: { id: op.id },
        };
        await hooks.before('record.delete', context);
        return op;
      }
    }
  }

  /** A batch's write, its refusal's fields named by its place (`operations.<i>.<field>`). */
  async function placed<T>(i: number, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isRoostError(err)) throw err;
      const fields = err.fields.map(([f, r]): FieldProblem => [`operations.${i}.${f}`, r]);
      throw new RoostError(err.kind, err.code, err.message, { fields, body: err.body, cause: err });
    }
  }

  const tell = (told: Told[]) => {
    for (const event of told) events.emit(event);
  };

  /**
   * Runs a write (or a batch) again, from its check, while a migration replaced the schema it
   * was checked against; at most `ATTEMPTS` times.
   */
  async function checkedAgain<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof SchemaMoved)) throw err;
        if (attempt >= ATTEMPTS) throw collectionErrors.collection_changing({ cause: err });
      }
    }
  }

  return {
    /** One write in its own transaction (a create's rule and a unique index answer inside it). */
    async write(principal: Principal, collection: string, sent: RecordWrite): Promise<RecordView | null> {
      deps.collection(collection);
      const op = await hooked(principal, collection, sent);
      const told: Told[] = [];
      // A create is one statement (its rule inside it): no transaction of its own, so that on SQLite
      // it commits with the other writes of its turn. A change reads the record first: a transaction;
      // so does a create with after-hooks, whose jobs commit with it (core/hooks.ts `after`).
      const result = await checkedAgain(() =>
        op.action === 'create' && !hooks.hasAfter('record.create')
          ? write(deps.repo, principal, collection, op, told)
          : deps.repo.transaction((repo) => write(repo, principal, collection, op, told)),
      );
      tell(told);
      return result;
    },

    /** All or nothing: every write in one transaction; the first refusal names its place. */
    async batch(
      principal: Principal,
      sent: ReadonlyArray<{ collection: string; op: RecordWrite }>,
    ): Promise<Array<RecordView | null>> {
      let told: Told[] = [];
      const writes: Array<{ collection: string; op: RecordWrite }> = [];
      for (const [i, { collection, op }] of sent.entries()) {
        // An unknown collection is refused before any hook runs, at its place.
        const checked = await placed(i, () => {
          deps.collection(collection);
          return hooked(principal, collection, op);
        });
        writes.push({ collection, op: checked });
      }
      const results = await checkedAgain(() => {
        told = [];
        return deps.repo.transaction((repo) => batchOf(repo));
      });
      tell(told);
      return results;

      async function batchOf(repo: RecordsRepo): Promise<Array<RecordView | null>> {
        const out: Array<RecordView | null> = [];
        for (const [i, { collection, op }] of writes.entries())
          out.push(await placed(i, () => write(repo, principal, collection, op, told)));
        return out;
      }
    },

    /**
     * The record as stored, if the caller may view it: from the record cache, the same object each time while
     * it is kept (records-repo.ts), which a get's answer text is kept by (collections-service.ts `getText`).
     */
    async stored(principal: Principal, collection: string, id: string): Promise<StoredRecord> {
      const state = deps.collection(collection);
      const access = allowed(state, 'view', principal, null);
      const record = await readRepo.get(collection, id, access.where ?? undefined);
      if (!record) throw collectionErrors.record_not_found({ fields: [['id', 'no such record']] });
      return record;
    },

    /** The records of these ids that the caller may view; none when it may view none (record-expand.ts). */
    async viewable(principal: Principal, collection: string, ids: readonly string[]): Promise<RecordView[]> {
      const access = accessFor(deps.collection(collection), 'view', principal, null, dialect, compile);
      if (!access.allowed) return [];
      return (await readRepo.getMany(collection, ids, access.where ?? undefined)).map(recordView);
    },

    /** The access of a list (for the query that pages it). */
    listAccess(principal: Principal, collection: string) {
      return allowed(deps.collection(collection), 'list', principal, null);
    },
  };
}

/** An id as callers send it: refused early when it cannot be one (no query for a hostile string). */
export function checkedId(id: unknown): string {
  if (typeof id !== 'string' || !/^[0-9a-f-]{1,36}$/.test(id))
    throw commonErrors.validation_failure({ fields: [['id', 'not a record id']] });
  return id;
}
