/**
 * A listener: a function called with the event's arguments and the form, or the name of a method
 * of the form (called with the arguments).
 *
 * @example
 * form.listenEvent('success', ({ data }) => console.log('saved', data));
 */
export type FormListener = ((args: Readonly<Record<string, unknown>>, form: FormEvents) => unknown) | string;

/**
 * The event mechanism of every form: `listenEvent`, `removeListener`, `signal`. Listeners run in
 * registration order and are awaited one after the other, so a `validate` listener may change the
 * data before validation.
 *
 * Events: `init`, `setup`, `validate(data)`, `process(data)`, `loadDataObj(data, obj)`,
 * `loadDefault(data)`, `cancel`, `render(data)`, `success(data)` / `success(obj)`,
 * `delete(data)`, `messages(messages, result)`.
 *
 * @example
 * class MyForm extends FormEvents {} await new MyForm().signal('setup');
 */
export class FormEvents {
  readonly #listeners = new Map<string, FormListener[]>();

  /**
   * Registers a listener.
   *
   * @example
   * form.listenEvent('validate', ({ data }) => { (data as Record<string, unknown>).slug ??= 'x'; });
   */
  listenEvent(signal: string, fn: FormListener): void {
    const list = this.#listeners.get(signal) ?? [];
    list.push(fn);
    this.#listeners.set(signal, list);
  }

  /**
   * Removes one listener, or all listeners of the signal when `fn` is omitted.
   *
   * @example
   * form.removeListener('success');
   */
  removeListener(signal: string, fn?: FormListener): void {
    if (!fn) this.#listeners.delete(signal);
    else
      this.#listeners.set(
        signal,
        (this.#listeners.get(signal) ?? []).filter((l) => l !== fn),
      );
  }

  /**
   * Fires an event; returns the non-undefined results of the listeners. Exceptions propagate.
   *
   * @example
   * await form.signal('success', { data });
   */
  async signal(signal: string, args: Readonly<Record<string, unknown>> = {}): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const fn of [...(this.#listeners.get(signal) ?? [])]) {
      let r: unknown;
      if (typeof fn === 'string') {
        const method: unknown = Reflect.get(this, fn);
        if (typeof method !== 'function') throw new TypeError(`Listener method "${fn}" not found`);
        r = await (method as (a: Readonly<Record<string, unknown>>) => unknown).call(this, args);
      } else r = await fn(args, this);
      if (r !== undefined) results.push(r);
    }
    return results;
  }
}
