import type { Config } from '../../core/config.js';
import type { UserService } from '../../users/index.js';
import { accountOperations } from './user-account-protocol.js';
import { adminOperations } from './user-admin-protocol.js';
import { factorOperations } from './user-factor-protocol.js';
import { providerOperations } from './user-provider-protocol.js';
import { sessionOperations } from './user-session-protocol.js';
import { signinOperations } from './user-signin-protocol.js';
import { methodOperations } from './signin-methods/index.js';
import { userWire, type UserOperation } from './user-wire.js';

export type { UserOperation } from './user-wire.js';
export { profileView } from './user-views.js';

/**
 * Every operation of the user service, `/users/api/<op>`, each answering GET (query) and POST
 * (JSON or form body). Validation failures answer 200 with `result: false`, as the original
 * does; docs/errors.md lists the other statuses. One table per area (user-*-protocol.ts), and one
 * per sign-in method that brings its own (signin-methods/index.ts, the methods' after the
 * password's, where the original table had mail sign-in).
 */
export function userOperations(users: UserService, config: Config): UserOperation[] {
  const wire = userWire(users, config);
  return [
    ...signinOperations(wire),
    ...methodOperations(wire),
    ...providerOperations(wire),
    ...factorOperations(wire),
    ...sessionOperations(wire),
    ...accountOperations(wire),
    ...adminOperations(wire),
  ];
}
