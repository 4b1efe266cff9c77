import type { FastifyRequest } from 'fastify';
import { ADMINS } from '../core/permissions.js';
import { callerOf, type RequestCaller } from '../http/auth.js';
import type { UserService } from '../users/index.js';

/**
 * The administrator behind a page request, or null. Pages authenticate with the `auth` cookie
 * that sign-in sets; only members of the `admins` group get an admin page or action.
 */
export async function adminCaller(request: FastifyRequest, users: UserService): Promise<RequestCaller | null> {
  const caller = await callerOf(request, users);
  return caller.user && caller.user.groups.includes(ADMINS) ? caller : null;
}
