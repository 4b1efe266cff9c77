/**
 * What an action callback returns: the result (falsy on failure, else `true`, the data or an
 * object) and the html to show.
 */
export type ActionResult = readonly [result: unknown, html: string];

/** Keyword arguments flowing from `process(kw)` (overlaid on `action.options`) into the callback. */
export interface ActionKw {
  defaultAction?: string | ActionConf;
  redirectSuccess?: RedirectTarget;
  redirectCancel?: RedirectTarget;
  renderSuccess?: boolean;
  success_message?: string;
  defaultData?: Record<string, unknown>;
  values?: Record<string, unknown>;
  user?: unknown;
  [key: string]: unknown;
}

/**
 * A callback given inline on an action. `this` is the form.
 *
 * @example
 * const save: ActionCallback = async function (action, kw) { return [true, 'saved']; };
 */
export type ActionCallback = (action: ActionConf, kw: ActionKw) => ActionResult | Promise<ActionResult>;

/**
 * A redirect target: a url, a url placeholder (`obj_url`, `obj_folder_url`, `parent_url`,
 * `page_url`, `page_url_anchor`, optionally followed by `/more/path`), or a callback
 * `(context, view)` returning a url.
 */
export type RedirectTarget = string | ((context: unknown, view: unknown) => string);

/**
 * Configuration of one action (the seed's `Conf`). The request names an action with the key
 * `id + actionPostfix` (`save$`). `method` is the name of a method of the form (looked up on the
 * instance, so subclasses add actions by adding methods) or a callback.
 *
 * @example
 * const save: ActionConf = { id: 'save', method: 'processForm', name: 'Save', cssClass: 'btn btn-primary' };
 */
export interface ActionConf {
  id: string;
  method: string | ActionCallback;
  /** Button label (translated). */
  name?: string;
  /** Hidden actions have no button but can still be requested. */
  hidden?: boolean;
  cssClass?: string;
  description?: string;
  /** Default keyword arguments; `process(kw)` overrides them. */
  options?: Readonly<Record<string, unknown>>;
  /**
   * The action runs on a form that is not valid (yet): its button gets `formnovalidate`, so the
   * browser lets it through with required fields empty. Default: on for the `cancel` method (the
   * seed runs `cancel()` before any validation), off for the others.
   */
  skipValidation?: boolean;
}

/**
 * Whether the browser should submit `action` without checking the form first.
 *
 * @example
 * skipsValidation({ id: 'cancel', method: 'cancel' }); // true
 */
export function skipsValidation(action: ActionConf): boolean {
  return action.skipValidation ?? action.method === 'cancel';
}

/** The seed's name for an action configuration. */
export type Conf = ActionConf;
