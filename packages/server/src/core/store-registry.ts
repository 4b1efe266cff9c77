/** The configured stores of one kind (data stores, file stores), by name, in the configuration's order. */
export interface StoreRegistry<S> {
  readonly names: readonly string[];
  get(name: string): S | undefined;
}

/** One registry for either store kind: made once at start, from the configuration. */
export function storeRegistry<O, S>(
  configured: Record<string, O>,
  open: (name: string, options: O) => S,
): StoreRegistry<S> {
  const stores = new Map(Object.entries(configured).map(([name, options]) => [name, open(name, options)]));
  return { names: [...stores.keys()], get: (name) => stores.get(name) };
}
