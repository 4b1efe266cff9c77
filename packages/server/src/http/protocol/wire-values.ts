import { isRoostError, RoostError } from '../../core/errors.js';

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

/**
 * A failed operation's members of the original's failure body beyond the usual ones
 * (http/error-handler.ts `failureBody`: `result: false`): the data store's writes answer
 * `result: 0, success: []`, some file store failures `result: 0`. `when` picks the failures that
 * do (all by default); any other error passes as it is.
 */
export async function failingWith<T>(
  body: Record<string, unknown>,
  work: Promise<T>,
  when: (err: RoostError) => boolean = () => true,
): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!isRoostError(err) || !when(err)) throw err;
    throw new RoostError(err.kind, err.code, err.message, {
      fields: err.fields,
      cause: err.cause,
      body: { ...err.body, ...body },
      // The wait before a retry (`database_unavailable`, `rate_limited`) stays the failure's.
      ...(err.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: err.retryAfterSeconds }),
    });
  }
}
