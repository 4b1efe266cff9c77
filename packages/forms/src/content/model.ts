/* The small content model the object, tool, workflow and JSON forms work on. Interfaces only:
   kysely-content.ts is the implementation on a database table; a host may bring its own. */
import type { FieldConf } from '../conf/field-conf.js';
import type { FormApp, TypeConf } from '../conf/subset.js';
import type { FormView } from '../form/form.js';
import type { FormRequest } from '../request/form-request.js';

/** Field values of an object: JSON-safe values by field id. */
export type ContentData = Record<string, unknown>;

/** Where `insertAtPosition` puts an object among its siblings: first, last, or after the sibling with this id. */
export type SortPosition = 'first' | 'last' | (string & {});

/**
 * One workflow transition: from one of the states in `from` (`*` = any) to `to`. `wfAction`
 * picks it by its id, or by its `action` (defaults to the id) from the current state.
 *
 * @example
 * const publish: WorkflowTransition = { id: 'publish', from: ['draft'], to: 'published', name: 'Publish' };
 */
export interface WorkflowTransition {
  id: string;
  action?: string;
  name?: string;
  from: readonly string[] | '*';
  to: string;
}

/** A type's workflow: the state of new objects and the transitions. */
export interface WorkflowConf {
  initial: string;
  transitions: readonly WorkflowTransition[];
}

/**
 * An object type: its fields (`data`), form subsets and actions, plus what the content model needs.
 *
 * @example
 * const page: ContentTypeConf = {
 *   id: 'page',
 *   page: true,
 *   subtypes: ['note'],
 *   data: [{ id: 'body', datatype: 'text' }],
 * };
 */
export interface ContentTypeConf extends TypeConf {
  /** Objects of this type are pages (`page_url` of an object is its nearest page ancestor or itself). */
  page?: boolean;
  /** Types allowed as children; absent = any known type. */
  subtypes?: readonly string[];
  workflow?: WorkflowConf;
}

/**
 * A stored object: its field values, system values and the operations the forms call. Creating
 * and sorting children makes every object a container.
 *
 * `meta` holds the app's meta fields (e.g. `title`) and the system values `pool_type`,
 * `pool_create`, `pool_change`, `pool_createdby`, `pool_changedby`, `pool_wfa` (workflow state),
 * `pool_sort`.
 */
export interface ContentObject {
  readonly id: string;
  readonly type: string;
  readonly data: Readonly<ContentData>;
  readonly meta: Readonly<ContentData>;
  /** The parent object; undefined for a root. */
  readonly parent: ContentObject | undefined;
  /** The type configuration, if the type is known. */
  readonly configuration: ContentTypeConf | undefined;
  /**
   * Stores values: meta field ids go to `meta`, system ids (`pool_*`)
   * are ignored, the rest to `data`. False if the object is gone.
   */
  update(values: Readonly<ContentData>, user: unknown): Promise<boolean>;
  /** Creates a child (last position). Throws `ContentError` for an unknown or not allowed type. */
  create(type: string, values: Readonly<ContentData>, user: unknown): Promise<ContentObject>;
  /** The children in their order. */
  children(): Promise<ContentObject[]>;
  /**
   * Moves a child to a position among its siblings. Throws
   * `ContentError` when it is not a child or the sibling is unknown.
   */
  insertAtPosition?(child: ContentObject | string, position: SortPosition, user: unknown): Promise<void>;
  /**
   * Runs a workflow transition (by id, or the first one of `action`
   * allowed from the current state); false when none applies.
   */
  wfAction(action: string, user: unknown, transition?: string): Promise<boolean>;
}

/** What a tool's `run` gets besides the values. */
export interface ToolRunContext {
  user: unknown;
  view: FormView | undefined;
  request: FormRequest | undefined;
  /** The object the tool runs on, when it was opened for one. */
  target: ContentObject | undefined;
}

/** What a tool returns: `output` is text (shown escaped) unless `html` marks it as trusted markup. */
export interface ToolResult {
  ok: boolean;
  output: string;
  html?: boolean;
}

/**
 * A tool definition: its parameters (`data`), optional form subsets and actions, fixed `values`
 * that override submitted ones, and the function that does the work.
 *
 * @example
 * const count: ToolConf = {
 *   id: 'count',
 *   data: [{ id: 'type', datatype: 'string' }],
 *   run: async (v) => ({ ok: true, output: `${v.type}: 3` }),
 * };
 */
export interface ToolConf extends TypeConf {
  values?: Readonly<ContentData>;
  run(values: Readonly<ContentData>, ctx: ToolRunContext): ToolResult | Promise<ToolResult>;
}

/** A tool ready to run (the context of a `ToolForm`). */
export interface ContentTool {
  readonly configuration: ToolConf;
  readonly target: ContentObject | undefined;
  run(values: Readonly<ContentData>, ctx: Omit<ToolRunContext, 'target'>): Promise<ToolResult>;
}

/**
 * The application side of the model: types and tools by id, meta fields, objects by id.
 * It is a `FormApp`, so forms resolve `loadFromType` ids through it.
 */
export interface ContentApp extends FormApp {
  getObjectConf(id: string): ContentTypeConf | undefined;
  getToolConf(id: string): ToolConf | undefined;
  metaFields: FieldConf[];
  /** The object with this id, with its parents loaded; undefined when there is none. */
  get(id: string): Promise<ContentObject | undefined>;
  /** A tool ready to run, optionally on an object; undefined for an unknown id. */
  tool(id: string, target?: ContentObject): ContentTool | undefined;
}

/**
 * A view for pages that show content: the request, the user, urls of objects (for the redirect
 * placeholders) and flashed messages.
 */
export interface ContentView extends FormView {
  request: FormRequest;
  user: unknown;
  urls: Readonly<Record<string, (context: unknown) => string>>;
  flash(messages: readonly string[]): void;
  /** The flashed messages, removed from the store. */
  messages(): string[];
}

/** Why the content model refused an operation. */
export type ContentErrorCode = 'unknown_type' | 'type_not_allowed' | 'not_found' | 'invalid_position';

/**
 * A refused content operation (bad input, not a database failure). Forms show it as a message.
 *
 * @example
 * try { await root.create('nope', {}, user); } catch (e) { if (e instanceof ContentError) e.code; } // 'unknown_type'
 */
export class ContentError extends Error {
  override readonly name = 'ContentError';
  constructor(
    readonly code: ContentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * True for objects that implement the content model's object operations.
 *
 * @example
 * if (isContentObject(form.context)) await form.context.update({ title: 'x' }, user);
 */
export function isContentObject(value: unknown): value is ContentObject {
  const v = value as Partial<ContentObject> | null | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.update === 'function' &&
    typeof v.create === 'function' &&
    typeof v.id === 'string'
  );
}

/**
 * True for tools ready to run.
 *
 * @example
 * isContentTool(app.tool('count')); // true
 */
export function isContentTool(value: unknown): value is ContentTool {
  const v = value as Partial<ContentTool> | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.run === 'function' && typeof v.configuration === 'object';
}
