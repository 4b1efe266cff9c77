/** The parameters of one request, wherever the caller put them (http/request-values.ts). */
export type WireValues = Record<string, unknown>;

/**
 * A request's values as the input of a typed operation. This checks nothing, and needs not:
 * every operation checks its input with its own schema, whoever calls it
 * (datastore/datastore-inputs.ts), and the schemas take the text forms a query string carries
 * (`id=7`). The original protocol's parameters are the operations' inputs as they are.
 */
export const asInput = <T extends object>(values: WireValues): T => values as T;

/** An operation that answers nothing but success, in the original's fixed body (`{result: true}`, `{result: 1}`). */
export const answered =
  <T extends object>(body: T) =>
  async (work: Promise<unknown>): Promise<T> => {
    await work;
    return body;
  };
