/* The content model on one database table (Kysely; the same queries on SQLite and PostgreSQL).
   The host hands in its Kysely instance; objects form trees under named roots. */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { FieldConf } from '../conf/field-conf.js';
import { isUploadedFile } from '../request/form-request.js';
import {
  defaultContentTable,
  ensureContentSchema,
  type FormContentDatabase,
  type FormObjectsTable,
} from './content-schema.js';
import {
  ContentError,
  type ContentApp,
  type ContentData,
  type ContentObject,
  type ContentTool,
  type ContentTypeConf,
  type SortPosition,
  type ToolConf,
  type WorkflowTransition,
} from './model.js';

/** What the store knows besides its table: types, tools, meta fields. */
export interface KyselyContentOptions {
  types?: readonly ContentTypeConf[];
  tools?: readonly ToolConf[];
  /** Fields every object has, stored in `meta` (e.g. `title`). */
  metaFields?: FieldConf[];
  /** Table name; default `form_objects`. */
  table?: string;
}

/** Ids the store maintains itself; values under these keys are never taken from forms. */
const systemIds = new Set([
  'id',
  'pool_type',
  'pool_create',
  'pool_change',
  'pool_createdby',
  'pool_changedby',
  'pool_wfa',
  'pool_sort',
]);

/** A readable id for the audit columns: a string user, or the user's `id` / `name`. */
function userRef(user: unknown): string | null {
  if (typeof user === 'string') return user;
  if (typeof user === 'object' && user !== null) {
    const u = user as { id?: unknown; name?: unknown };
    const ref = u.id ?? u.name;
    if (typeof ref === 'string' || typeof ref === 'number') return String(ref);
  }
  return null;
}

function parseJson(text: string): ContentData {
  const v: unknown = JSON.parse(text);
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ContentData) : {};
}

const newId = (): string => randomBytes(9).toString('base64url');
const now = (): string => new Date().toISOString();

/**
 * The content model on a database table. Create one per database, call `ensureSchema()` once,
 * then open roots and objects.
 *
 * @example
 * const content = createKyselyContent(db, { types: [article], metaFields: [{ id: 'title', datatype: 'string' }] });
 * await content.ensureSchema();
 * const root = await content.root();
 * const obj = await root.create('article', { title: 'Hello', body: '...' }, user);
 */
export class KyselyContent implements ContentApp {
  readonly db: Kysely<FormContentDatabase>;
  readonly table: string;
  readonly metaFields: FieldConf[];
  readonly #types: Map<string, ContentTypeConf>;
  readonly #tools: Map<string, ToolConf>;
  readonly #metaIds: Set<string>;

  constructor(db: Kysely<FormContentDatabase>, options: KyselyContentOptions = {}) {
    this.db = db;
    this.table = options.table ?? defaultContentTable;
    this.metaFields = options.metaFields ?? [];
    this.#types = new Map((options.types ?? []).map((t) => [t.id, t]));
    this.#tools = new Map((options.tools ?? []).map((t) => [t.id, t]));
    this.#metaIds = new Set(this.metaFields.map((f) => f.id));
  }

  /** Creates the table if it is missing. */
  ensureSchema(): Promise<void> {
    return ensureContentSchema(this.db, this.table);
  }

  /** An object type by id. */
  getObjectConf(id: string): ContentTypeConf | undefined {
    return this.#types.get(id);
  }

  /** A tool definition by id. */
  getToolConf(id: string): ToolConf | undefined {
    return this.#tools.get(id);
  }

  /**
   * The root object `id` (type `root`), created on first use. Roots keep separate trees. Throws
   * `ContentError` when `id` names an object that is not a root.
   *
   * @example
   * const site = await content.root('site');
   */
  async root(id = 'root'): Promise<ContentObject> {
    const existing = await this.get(id);
    if (existing?.parent) throw new ContentError('not_found', `Not a root (${id})`);
    if (existing) return existing;
    const t = now();
    const row: FormObjectsTable = {
      id,
      parent_id: null,
      type: 'root',
      position: 0,
      data: '{}',
      meta: '{}',
      wf_state: null,
      created_at: t,
      changed_at: t,
      created_by: null,
      changed_by: null,
    };
    // A concurrent first use may have inserted it already; the second insert is a no-op.
    await this.db
      .insertInto(this.table)
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return (await this.get(id)) as ContentObject;
  }

  /**
   * The object with this id (of any root), with its parent chain; undefined when there is none.
   *
   * @example
   * const obj = await content.get(params.id);
   */
  async get(id: string): Promise<ContentObject | undefined> {
    const row = await this.#row(id);
    if (!row) return undefined;
    // Load the parent chain so urls (parent_url, page_url) resolve without further queries.
    const chain: FormObjectsTable[] = [row];
    for (let r = row; r.parent_id !== null && chain.length < 100; ) {
      const parent = await this.#row(r.parent_id);
      if (!parent) break;
      chain.push(parent);
      r = parent;
    }
    let obj: StoredObject | undefined;
    for (const r of chain.reverse()) obj = new StoredObject(this, r, obj);
    return obj;
  }

  /**
   * A tool ready to run, on `target` when given; undefined for an unknown id.
   *
   * @example
   * const form = new ToolForm({ view, context: content.tool('export', folder) });
   */
  tool(id: string, target?: ContentObject): ContentTool | undefined {
    const configuration = this.#tools.get(id);
    if (!configuration) return undefined;
    return {
      configuration,
      target,
      run: async (values, ctx) => configuration.run({ ...values, ...configuration.values }, { ...ctx, target }),
    };
  }

  #row(id: string): Promise<FormObjectsTable | undefined> {
    return this.db.selectFrom(this.table).selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** @internal Splits form values into data and meta, dropping system ids and uploads (files are not stored here). */
  split(values: Readonly<ContentData>): { data: ContentData; meta: ContentData } {
    const data: ContentData = {};
    const meta: ContentData = {};
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined || systemIds.has(k) || isUploadedFile(v)) continue;
      (this.#metaIds.has(k) ? meta : data)[k] = v;
    }
    return { data, meta };
  }

  /** @internal */
  async childRows(parentId: string): Promise<FormObjectsTable[]> {
    return this.db
      .selectFrom(this.table)
      .selectAll()
      .where('parent_id', '=', parentId)
      .orderBy('position')
      .orderBy('created_at')
      .execute();
  }

  /** @internal */
  async insertChild(
    parent: StoredObject,
    type: string,
    values: Readonly<ContentData>,
    user: unknown,
  ): Promise<StoredObject> {
    const conf = this.#types.get(type);
    if (!conf) throw new ContentError('unknown_type', `Unknown object type (${type})`);
    const allowed = parent.configuration?.subtypes;
    if (allowed && !allowed.includes(type))
      throw new ContentError('type_not_allowed', `Object type not allowed (${type})`);
    const { data, meta } = this.split(values);
    const last = await this.db
      .selectFrom(this.table)
      .select((eb) => eb.fn.max('position').as('max'))
      .where('parent_id', '=', parent.id)
      .executeTakeFirst();
    const t = now();
    const row: FormObjectsTable = {
      id: newId(),
      parent_id: parent.id,
      type,
      position: last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1,
      data: JSON.stringify(data),
      meta: JSON.stringify(meta),
      wf_state: conf.workflow?.initial ?? null,
      created_at: t,
      changed_at: t,
      created_by: userRef(user),
      changed_by: userRef(user),
    };
    await this.db.insertInto(this.table).values(row).execute();
    return new StoredObject(this, row, parent);
  }

  /** @internal Writes changed columns; false when the row is gone. */
  async write(id: string, changes: Partial<FormObjectsTable>): Promise<boolean> {
    const r = await this.db.updateTable(this.table).set(changes).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}

/**
 * The content model on the host's Kysely instance, whatever its own database type.
 *
 * @example
 * const content = createKyselyContent(roostDb, { types });
 */
export function createKyselyContent<DB>(db: Kysely<DB>, options: KyselyContentOptions = {}): KyselyContent {
  // The host's database type does not know our table; we only ever query that table.
  return new KyselyContent(db.withTables<FormContentDatabase>() as unknown as Kysely<FormContentDatabase>, options);
}

/** An object loaded from the table, with its parent chain. */
class StoredObject implements ContentObject {
  readonly id: string;
  readonly type: string;
  readonly parent: ContentObject | undefined;
  data: ContentData;
  #meta: ContentData;
  #row: FormObjectsTable;
  readonly #store: KyselyContent;

  constructor(store: KyselyContent, row: FormObjectsTable, parent: ContentObject | undefined) {
    this.#store = store;
    this.#row = row;
    this.id = row.id;
    this.type = row.type;
    this.parent = parent;
    this.data = parseJson(row.data);
    this.#meta = parseJson(row.meta);
  }

  get configuration(): ContentTypeConf | undefined {
    return this.#store.getObjectConf(this.type);
  }

  get meta(): Readonly<ContentData> {
    const r = this.#row;
    return {
      ...this.#meta,
      pool_type: r.type,
      pool_create: r.created_at,
      pool_change: r.changed_at,
      pool_createdby: r.created_by,
      pool_changedby: r.changed_by,
      pool_wfa: r.wf_state,
      pool_sort: r.position,
    };
  }

  async update(values: Readonly<ContentData>, user: unknown): Promise<boolean> {
    const { data, meta } = this.#store.split(values);
    const next = { data: { ...this.data, ...data }, meta: { ...this.#meta, ...meta } };
    const changes = {
      data: JSON.stringify(next.data),
      meta: JSON.stringify(next.meta),
      changed_at: now(),
      changed_by: userRef(user),
    };
    if (!(await this.#store.write(this.id, changes))) return false;
    this.data = next.data;
    this.#meta = next.meta;
    this.#row = { ...this.#row, ...changes };
    return true;
  }

  create(type: string, values: Readonly<ContentData>, user: unknown): Promise<ContentObject> {
    return this.#store.insertChild(this, type, values, user);
  }

  async children(): Promise<ContentObject[]> {
    return (await this.#store.childRows(this.id)).map((r) => new StoredObject(this.#store, r, this));
  }

  async insertAtPosition(child: ContentObject | string, position: SortPosition, user: unknown): Promise<void> {
    const childId = typeof child === 'string' ? child : child.id;
    const rows = await this.#store.childRows(this.id);
    const moving = rows.find((r) => r.id === childId);
    if (!moving) throw new ContentError('not_found', `Not a child of ${this.id} (${childId})`);
    const order = rows.filter((r) => r !== moving);
    let index: number;
    if (position === 'first') index = 0;
    else if (position === 'last') index = order.length;
    else {
      const after = order.findIndex((r) => r.id === position);
      if (after === -1) throw new ContentError('invalid_position', `Unknown sibling (${position})`);
      index = after + 1;
    }
    order.splice(index, 0, moving);
    const by = userRef(user);
    await this.#store.db.transaction().execute(async (trx) => {
      for (const [i, r] of order.entries()) {
        if (r.position === i && r !== moving) continue;
        const changes = r === moving ? { position: i, changed_at: now(), changed_by: by } : { position: i };
        await trx.updateTable(this.#store.table).set(changes).where('id', '=', r.id).execute();
      }
    });
  }

  async wfAction(action: string, user: unknown, transition?: string): Promise<boolean> {
    const transitions = this.configuration?.workflow?.transitions ?? [];
    const state = this.#row.wf_state ?? '';
    const allowed = (t: WorkflowTransition): boolean => t.from === '*' || t.from.includes(state);
    const chosen = transition
      ? transitions.find((t) => t.id === transition && allowed(t))
      : transitions.find((t) => (t.action ?? t.id) === action && allowed(t));
    if (!chosen) return false;
    const changes = { wf_state: chosen.to, changed_at: now(), changed_by: userRef(user) };
    if (!(await this.#store.write(this.id, changes))) return false;
    this.#row = { ...this.#row, ...changes };
    return true;
  }
}
