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
  actions: 'form-actions',
  button: 'btn',
  progress: 'progress',
  progressBar: 'bar bar-success',
  controlset: 'input-controlset',
  footer: 'form-footer',
});
