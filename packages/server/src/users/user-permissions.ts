import { ADMINS, AUTHENTICATED, EVERYONE, NOONE, type PermissionMap } from '../core/permissions.js';

/**
 * Default permission entries of the user service: one per operation, named after it. Sign-up
 * policies are off until an administrator grants them (seed: "enabled or disabled by granting
 * or removing their permission"); direct email change is for administrators only, everybody
 * else verifies the new address by mail.
 */
export const USER_PERMISSION_DEFAULTS: PermissionMap = {
  // The sign-in methods' operations follow these (their `permissions`, signin-methods/).
  ping: [EVERYONE],
  token: [EVERYONE],
  signin: [EVERYONE],
  signout: [EVERYONE],
  token2: [EVERYONE],
  signin2: [EVERYONE],
  providers: [EVERYONE],
  signinProvider: [EVERYONE],
  signinProvider2: [EVERYONE],
  providerLinks: [AUTHENTICATED],
  unlinkProvider: [AUTHENTICATED],
  secondFactor: [AUTHENTICATED],
  sessions: [AUTHENTICATED],
  revokeSession: [AUTHENTICATED],
  revokeOtherSessions: [AUTHENTICATED],
  allowed: [EVERYONE],
  authenticated: [EVERYONE],
  identity: [AUTHENTICATED],
  name: [AUTHENTICATED],
  profile: [AUTHENTICATED],
  signupDirect: [NOONE],
  signupOptin: [NOONE],
  signupReview: [NOONE],
  signupSendpw: [NOONE],
  signupUid: [NOONE],
  activate: [EVERYONE],
  update: [AUTHENTICATED],
  updatePassword: [AUTHENTICATED],
  updateEmail: [ADMINS],
  verifyEmail: [AUTHENTICATED],
  verifyEmail2: [EVERYONE],
  resetPassword: [EVERYONE],
  resetPassword2: [EVERYONE],
  message: [AUTHENTICATED],
  disable: [AUTHENTICATED],
  delete: [AUTHENTICATED],
  review: [ADMINS],
  getUser: [ADMINS],
  setUser: [ADMINS],
  removeUser: [ADMINS],
  list: [ADMINS],
  identities: [ADMINS],
  getPermissions: [ADMINS],
  setPermissions: [ADMINS],
  userFactors: [ADMINS],
  resetSecondFactor: [ADMINS],
  userSessions: [ADMINS],
  revokeUserSessions: [ADMINS],
};
