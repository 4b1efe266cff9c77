import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../core/config.js';
import type { Caller, UserService } from '../../users/index.js';
import { clearAuthCookie, startCookieSession } from '../auth.js';
import { answered, asInput, type WireValues } from './wire-values.js';

/**
 * The user service in the original protocol (docs/users.md): each
 * operation's name and aliases, what guards it, and how its typed call (users/user-service.ts)
 * answers on the wire. The bodies are the original connectors' contract: they stay byte for
 * byte what they were when the service answered them itself (test/http/users-*.test.ts).
 */
export interface UserOperation {
  op: string;
  summary: string;
  aliases?: string[];
  /** Also answers DELETE (disable, delete). */
  del?: boolean;
  /** Brute-force guarded: answers 429 past the configured rate. */
  limited?: boolean;
  /** Throttled by failed attempts per account and address in the domain (users/signin-throttle.ts), not by requests. */
  signin?: boolean;
  /** Changes nothing, so a cross-site cookie request may call it. */
  read?: boolean;
  /** Checked for a same-origin browser request even without a cookie (sign-in: login CSRF). */
  sameOrigin?: boolean;
  admin?: boolean;
  /** The input's schema, for the API docs (the service checks its input itself). */
  input?: z.ZodType;
  /** The success answer's JSON schema, for the API docs (answer-schemas.ts). */
  answer: object;
  call(caller: Caller, values: WireValues): Promise<object>;
  /** Shapes the reply after a successful call (cookies). */
  after?: (request: FastifyRequest, reply: FastifyReply, answer: object) => object | Promise<object>;
}
export const DONE = { result: true } as const;
export const done = answered(DONE);

/** A command of the service (no result but success) in the original's form: `{result: true}`. */
export const command =
  <I extends object>(run: (caller: Caller, input: I) => Promise<void>) =>
  (caller: Caller, values: WireValues) =>
    done(run(caller, asInput(values)));

/** What the areas' tables share: the service, and the replies that set or clear the cookie. */
export interface UserWire {
  users: UserService;
  config: Config;
  /** Clears the cookie after a signout (and the account's end). */
  clearCookie(request: FastifyRequest, reply: FastifyReply, answer: object): object;
  /** The cookie variants of the sign-ins (`signin`, `passkeySignin`): the token goes into the cookie only. */
  intoCookie(request: FastifyRequest, reply: FastifyReply, answer: object): Promise<object>;
}

export function userWire(users: UserService, config: Config): UserWire {
  return {
    users,
    config,
    clearCookie(request, reply, answer) {
      clearAuthCookie(request, reply);
      return answer;
    },
    async intoCookie(request, reply, answer) {
      const { token } = answer as { token: string };
      await startCookieSession(request, reply, users, token, config.users.tokenLifetimeSeconds);
      return DONE;
    },
  };
}
