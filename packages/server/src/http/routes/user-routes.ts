import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../core/config.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import type { UserService } from '../../users/index.js';
import { assertSameOrigin, assertWriteOrigin, callerOf, clearAuthCookie, setAuthCookie, withAddress } from '../auth.js';
import { requestValues } from '../request-values.js';
import { docSchema } from '../openapi.js';

interface UserRoute {
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
  input?: z.ZodType;
  /** Shapes the reply after a successful run (cookies). */
  after?: (request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * Every route of the user service, `/users/api/<op>`, each answering GET (query) and POST
 * (JSON or form body). Validation failures answer 200 with `result: false`, as the original
 * does; see DESIGN.md for the other statuses.
 */
export function userRoutes(users: UserService, config: Config): UserRoute[] {
  const i = users.inputs;
  const clearCookie = (request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>) => {
    clearAuthCookie(request, reply);
    return result;
  };
  return [
    { op: 'ping', summary: 'Health check: answers `result: 1`.', read: true },
    {
      op: 'token',
      summary: 'Exchange identity and password for a token (send it as `x-auth-token` or `Authorization: Bearer`).',
      signin: true,
      input: i.credentials,
    },
    {
      op: 'signin',
      sameOrigin: true,
      summary: 'Sign in: sets the HttpOnly cookie `auth`.',
      signin: true,
      input: i.credentials,
      after(request, reply, result) {
        setAuthCookie(request, reply, String(result.token), config.users.tokenLifetimeSeconds);
        return { result: true };
      },
    },
    { op: 'signout', summary: 'Revoke the token of this request and clear the cookie.', after: clearCookie },
    { op: 'identity', summary: 'The signed-in user: name, realname, email, id (and `reference`).', read: true },
    { op: 'name', summary: 'Name (or email, by the identity policy) and realname.', read: true },
    { op: 'profile', summary: 'The profile of the signed-in user.', read: true },
    {
      op: 'authenticated',
      summary: 'Signed in (and, with `groups`, member of one of them)?',
      read: true,
      input: i.authenticated,
    },
    { op: 'allowed', summary: 'Does the caller hold these permissions?', read: true, input: allowedInput },
    { op: 'signupDirect', summary: 'Sign up: active at once.', limited: true, input: i.signup },
    {
      op: 'signupOptin',
      summary: 'Sign up: pending until the mailed activation token is used.',
      limited: true,
      input: i.signup,
    },
    {
      op: 'signupReview',
      summary: 'Sign up: pending until an administrator reviews it.',
      limited: true,
      input: i.signup,
    },
    {
      op: 'signupSendpw',
      summary: 'Sign up: active, with a generated password sent by mail.',
      limited: true,
      input: i.signupSendpw,
    },
    {
      op: 'signupUid',
      summary: 'Sign up: active, with a generated 30-character name returned as `name`.',
      limited: true,
      input: i.signupUid,
    },
    { op: 'activate', summary: 'Activate a pending account with its mailed token.', limited: true, input: i.token },
    { op: 'update', summary: 'Change realname, notify or data.', input: i.update },
    { op: 'updatePassword', summary: 'Change the password (needs the current one).', input: i.updatePassword },
    {
      op: 'updateEmail',
      aliases: ['updateMail'],
      summary: 'Change the email at once, without verification (permission-guarded).',
      input: i.email,
    },
    { op: 'verifyEmail', summary: 'Mail a verification token to a new address.', input: i.email },
    { op: 'verifyEmail2', summary: 'Take the new address with its verification token.', limited: true, input: i.token },
    {
      op: 'resetPassword',
      summary: 'Mail a reset token; answers the same whether or not the account exists.',
      limited: true,
      input: i.identity,
    },
    {
      op: 'resetPassword2',
      summary: 'Set a new password with the reset token.',
      limited: true,
      input: i.resetPassword2,
    },
    { op: 'message', summary: 'Mail a message (at most 5000 characters) to the administrator.', input: i.message },
    { op: 'disable', summary: 'Disable the own account and sign out.', del: true, after: clearCookie },
    { op: 'delete', summary: 'Remove the own account for good.', del: true, after: clearCookie },
    {
      op: 'review',
      summary: 'Review a pending sign-up: accept, optin, activate, reject, disable.',
      admin: true,
      input: i.review,
    },
    { op: 'getUser', summary: 'A user profile, by name, email or id.', admin: true, read: true, input: i.identity },
    {
      op: 'setUser',
      summary: 'Change a user (`values`: realname, email, name, notify, data, groups, password, active).',
      admin: true,
      input: i.setUser,
    },
    { op: 'removeUser', summary: 'Remove a user.', admin: true, input: i.identity },
    { op: 'list', summary: 'Users with their profiles: search, paging, sort.', admin: true, read: true, input: i.list },
    { op: 'identities', summary: 'Users as identities: search, paging, sort.', admin: true, read: true, input: i.list },
    { op: 'getPermissions', summary: 'The permission entries of the user service.', admin: true, read: true },
    {
      op: 'setPermissions',
      summary: 'Add, replace or revoke groups of permission entries.',
      admin: true,
      input: setPermissionsInput,
    },
  ];
}

export async function registerUserRoutes(
  app: FastifyInstance,
  options: { users: UserService; config: Config },
): Promise<void> {
  const { users, config } = options;
  const rateLimit = { max: config.rateLimit.max, timeWindow: config.rateLimit.windowSeconds * 1000 };

  for (const route of userRoutes(users, config)) {
    const docs = {
      tags: [route.admin ? 'users (administrators)' : 'users'],
      summary: route.summary,
      input: route.input,
    };
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Tokens and profiles must not stay in a browser's or a proxy's cache.
      reply.header('cache-control', 'no-store');
      const caller = await callerOf(request, users);
      if (route.sameOrigin) assertSameOrigin(request, config.corsOrigins);
      else if (!route.read) assertWriteOrigin(request, caller, config.corsOrigins);
      const result = await users.run(
        route.op,
        route.signin ? withAddress(caller, request) : caller,
        requestValues(request),
      );
      return route.after ? route.after(request, reply, result) : result;
    };
    // GET, POST and DELETE of one operation share one rate-limit counter: one limiter (one
    // store) per operation, as a hook of each route. A per-route `config.rateLimit` would give
    // every method a store, and so a counter, of its own (`groupId` does not join them).
    const routeConfig = { validationStatus: 200 };
    // The key names the operation: a shared (Redis) store would otherwise count every operation together.
    const limit = route.limited
      ? { onRequest: app.rateLimit({ ...rateLimit, keyGenerator: (request) => `${route.op}:${request.ip}` }) }
      : {};
    for (const name of [route.op, ...(route.aliases ?? [])]) {
      const url = `/users/api/${name}`;
      app.post(url, { schema: docSchema({ ...docs, in: 'body' }), config: routeConfig, ...limit }, handler);
      app.get(url, { schema: docSchema({ ...docs, in: 'querystring' }), config: routeConfig, ...limit }, handler);
      if (route.del)
        app.delete(url, { schema: docSchema({ ...docs, in: 'none' }), config: routeConfig, ...limit }, handler);
    }
  }
}
