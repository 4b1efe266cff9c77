/**
 * Thrown by a validator to reject a value. The message is a message id that is translated, with
 * `${name}` placeholders filled from `mapping`.
 *
 * @example
 * const validator: FieldValidator = (value) => {
 *   if (value === 'root') throw new ValidationError('"${val}" is reserved', { val: 'root' });
 * };
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  readonly mapping: Readonly<Record<string, unknown>>;

  constructor(message: string, mapping: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.mapping = mapping;
  }
}

/** Of a group or repeat: one input at fault (its path, or its request name in a `FieldError`) and its messages. */
export interface InputFault {
  input: string;
  messages: string[];
}

/**
 * One failed field (or the whole form when `field` is empty) with translated messages.
 *
 * @example
 * const [ok, , errors] = await form.validate(values);
 * errors[0]; // { field: 'email', messages: ['Invalid email address'] }
 */
export interface FieldError {
  field: string;
  messages: string[];
  /**
   * Of a group or repeat: the request names of the inputs inside it at fault (`others.1.street`,
   * by the item's position), which render with `aria-invalid` (fields/group-widgets.ts).
   */
  inputs?: string[];
  /** Of a group or repeat: each input at fault (its request name) with its messages (live checks). */
  faults?: InputFault[];
}
