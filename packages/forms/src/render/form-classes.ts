/**
 * Css class names the templates use. The defaults are the original's (Bootstrap-like) names; set
 * any of them with `applyOptions({ 'widget.classes': { input: 'input' } })` — no css framework
 * version is baked in.
 */
export interface FormClasses {
  item: string;
  itemOneColumn: string;
  label: string;
  labelOneColumn: string;
  input: string;
  /** A `<select>`'s class (Bootstrap 5 styles selects apart: `form-select`). */
  select: string;
  /** A wrapper around a single checkbox (Bootstrap's `form-check`); empty: no wrapper. */
  singleCheck: string;
  /** The visible label of a password's confirmation input. */
  confirmLabel: string;
  check: string;
  checkInput: string;
  checkLabel: string;
  invalid: string;
  error: string;
  required: string;
  errorMessage: string;
  help: string;
  helpOneColumn: string;
  alertSuccess: string;
  alertWarning: string;
  errorSummary: string;
  /** The links of the error summary to the invalid fields. */
  errorSummaryLink: string;
  actions: string;
  button: string;
  progress: string;
  progressBar: string;
  controlset: string;
  footer: string;
}

/**
 * The default class names.
 *
 * @example
 * new HTMLForm({ fields, widget: { classes: { ...defaultClasses, input: 'input' } } });
 */
export const defaultClasses: Readonly<FormClasses> = Object.freeze({
  item: 'row form-group',
  itemOneColumn: 'control-group',
  label: 'col-form-label',
  labelOneColumn: 'control-label',
  input: 'form-control',
  select: 'form-control',
  singleCheck: '',
  confirmLabel: 'confirm-label',
  check: 'form-check',
  checkInput: 'form-check-input',
  checkLabel: 'form-check-label',
  invalid: 'is-invalid',
  error: 'error',
  required: 'required',
  errorMessage: 'invalid-feedback',
  help: 'help-block',
  helpOneColumn: 'help-block',
  alertSuccess: 'alert alert-success',
  alertWarning: 'alert alert-warning',
  errorSummary: 'alert alert-warning error-summary',
  errorSummaryLink: '',
  actions: 'form-actions',
  button: 'btn',
  progress: 'progress',
  progressBar: 'bar bar-success',
  controlset: 'input-controlset',
  footer: 'form-footer',
});

/** A layout preset: what `widget` takes (classes, column classes, the error summary's heading). */
export interface FormPreset {
  settings?: Readonly<Record<string, unknown>>;
  action_css_class?: string;
  classes?: Partial<FormClasses>;
}

/**
 * Markup presets for styled hosts, given as the `widget` option. `bootstrap5`: the classes
 * Bootstrap 5 expects (a select's `form-select`, a checkbox's `form-check` wrapper, the progress
 * bar's `progress-bar`, `invalid-feedback` shown for groups too), columns `col-sm-3`/`col-sm-9`,
 * the error summary as an `alert-danger` with an `h2`. The defaults are the original's classes,
 * styled by the library's own stylesheet (`roost-forms.css`).
 *
 * @example
 * new HTMLForm({ fields, widget: presets.bootstrap5 });
 */
export const presets: Readonly<Record<'bootstrap5', FormPreset>> = Object.freeze({
  bootstrap5: {
    settings: {
      column1_css: 'col-sm-3',
      column2_css: 'col-sm-9',
      column3_css: 'col-sm-9 offset-sm-3',
      errorSummaryHeading: 'h2',
    },
    action_css_class: 'btn btn-secondary',
    classes: {
      item: 'row mb-3',
      label: 'col-form-label',
      input: 'form-control',
      select: 'form-select',
      singleCheck: 'form-check',
      confirmLabel: 'form-label mt-2',
      check: 'form-check',
      checkInput: 'form-check-input',
      checkLabel: 'form-check-label',
      invalid: 'is-invalid',
      errorMessage: 'invalid-feedback d-block',
      help: 'form-text',
      helpOneColumn: 'form-text',
      errorSummary: 'alert alert-danger',
      errorSummaryLink: 'alert-link',
      button: 'btn btn-secondary',
      progress: 'progress',
      progressBar: 'progress-bar',
    },
  },
});
