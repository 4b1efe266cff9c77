import type { CallOptions, CallResult, TestServer } from './test-server.js';

/** POST `/<store>/api/<op>` with a JSON body (the store `data` unless named). */
export function ds(
  s: TestServer,
  op: string,
  body: unknown = {},
  options: CallOptions & { store?: string } = {},
): Promise<CallResult> {
  const { store = 'data', ...rest } = options;
  return s.request(`/${store}/api/${op}`, body, { method: 'POST', ...rest });
}

/** The id of the user a token belongs to. */
export async function userIdOf(s: TestServer, token: string): Promise<string> {
  const res = await s.users('identity', {}, { token });
  return res.body.id as string;
}
