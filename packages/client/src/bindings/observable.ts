/**
 * A value that tells its listeners when it changes: the one piece the React and Vue bindings
 * share. Each change is a new object, so `useSyncExternalStore` can compare snapshots by identity.
 */
export class Observable<T extends object> {
  #value: T;
  readonly #listeners = new Set<() => void>();

  constructor(initial: T) {
    this.#value = initial;
  }

  /** The current value (the same object until the next change). */
  readonly get = (): T => this.#value;

  /** Listen to changes; returns the function that stops listening. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  set(patch: Partial<T>): void {
    this.#value = { ...this.#value, ...patch };
    for (const listener of [...this.#listeners]) listener();
  }
}

/** Ends the previous request when a newer one starts (or the view goes away), so only the newest answer lands. */
export class Latest {
  #controller: AbortController | undefined;

  /** A signal for a new request, aborting the one before. */
  next(): AbortSignal {
    this.#controller?.abort();
    this.#controller = new AbortController();
    return this.#controller.signal;
  }

  abort(): void {
    this.#controller?.abort();
    this.#controller = undefined;
  }
}
