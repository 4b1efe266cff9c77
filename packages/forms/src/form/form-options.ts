import type { RedirectTarget } from '../conf/action-conf.js';
import type { UploadStash } from '../request/upload-stash.js';
import type { Catalog, Translate } from '../validate/messages.js';

/** `auto` shows the bar once an ajax upload takes longer than 500 ms; `always` at send; `none` never. */
export type UploadProgressBar = 'auto' | 'none' | 'always';

/**
 * The options of a form (the seed's option table plus a few of the original's attributes). Set
 * them in the constructor, with `applyOptions`, or through a subset's `options`.
 */
export interface FormOptions {
  /** Element id of the form tag. Default `upload`. */
  formid: string;
  /** Css class of the form tag. Default `form`. */
  css_class: string;
  /** Appended to action ids in request parameters. Default `$`. */
  actionPostfix: string;
  /** `POST`, `GET`, or `ALL`/`ANY` (read both, POST wins). Default `POST`. */
  method: string;
  /** Action url of the form tag. Default empty (the current url). */
  action: string;
  /** Anchor added to the form's action url. Default empty. */
  anchor: string;
  uploadProgressBar: UploadProgressBar;
  /** Ajax submission (the browser script); the server answers XHR requests with the form html only. */
  use_ajax: boolean;
  /** True re-renders the whole form after success; false returns the messages only. Default true. */
  renderSuccess: boolean;
  /** Replaces the response body on success. */
  successResponseBody?: string | ((form: unknown) => string | Promise<string>);
  redirectSuccess?: RedirectTarget;
  redirectCancel?: RedirectTarget;
  /** `startForm` renders an empty form instead of the default data. */
  startEmpty: boolean;
  /** Adds `novalidate` to the form tag (server-side validation only). */
  novalidate: boolean;
  /** Trusted html rendered at the end of the form, before the buttons. */
  footer: string;
  /**
   * Hidden inputs (name → value) in every form tag the form renders: the form itself and the
   * delete forms of `JsonSequenceForm`'s item list. For values the host checks on every post,
   * such as a CSRF token.
   */
  hiddenValues: Readonly<Record<string, string>>;
  /** Adds `autocomplete="off"` to the form tag. */
  autofill?: string | boolean;
  /** Locale for messages and labels (`en`, `de`, ...). Default `en`. */
  locale: string;
  /** Extra translation catalogs by locale. */
  catalogs: Readonly<Record<string, Catalog>>;
  /** A translator replacing the built-in one (e.g. the host's i18n). */
  translate?: Translate;
  /** Url of a static asset by short name, for `htmlHead`. Default `/forms-static/<name>`. */
  staticUrl?: (name: string) => string;
  /**
   * Kept for compatibility and without effect: a controlset item's fields are SHOW rules on the
   * item (rules/controlset-rules.ts), so they are not validated, nor in the data, while it is not chosen.
   */
  skipUnselectedControls: boolean;
  /**
   * Where an upload waits when the form comes back with errors, so the user need not choose the
   * file again (request/upload-stash.ts). Default: this process's memory.
   */
  uploadStash?: UploadStash;
  /** Default data for `ObjectForm`-style start actions (kept for subclasses). */
  defaults?: unknown;
  /**
   * Validation as you type (live/live-spec.ts): the script checks a field when the user leaves or
   * changes it, with the server's rules and messages, asking the form's own url (`process()`
   * answers) what the page cannot check. The submit still decides. Default false.
   */
  liveValidation: boolean;
}

/**
 * The defaults of the seed's option table.
 *
 * @example
 * defaultFormOptions.formid; // 'upload'
 */
export const defaultFormOptions: Readonly<FormOptions> = Object.freeze({
  formid: 'upload',
  css_class: 'form',
  actionPostfix: '$',
  method: 'POST',
  action: '',
  anchor: '',
  uploadProgressBar: 'auto',
  use_ajax: false,
  renderSuccess: true,
  startEmpty: false,
  novalidate: false,
  footer: '',
  hiddenValues: {},
  locale: 'en',
  catalogs: {},
  skipUnselectedControls: false,
  liveValidation: false,
});
