export { createUserService, ANONYMOUS_CALLER } from './user-service.js';
export {
  SIGNUP_POLICIES,
  type NewAccount,
  type SignupPolicy,
  type UserService,
} from './user-service-type.js';
export type { UserPage } from './admin-ops.js';
export type * from './user-inputs.js';
export { accountNameFrom } from './user-inputs.js';
export { programCaller, type Caller } from './user-context.js';
export type { User } from './user-repo.js';
export { DuplicateUserError } from './user-repo.js';
export { belowOwasp } from './passwords.js';
// The sealing of secrets the server reads back, for the identity provider's keys too (identity-provider/idp-keys.ts).
export { createSecretBox, type SecretBox } from './secret-box.js';
export { USER_PAGE, REVIEW_ACTIONS } from './admin-ops.js';
export { userErrors } from './user-errors.js';
export { ACCOUNT_EVENTS, isAccountEvent, type AccountEvent } from './account-events.js';
export type { TotpSetup } from './signin-methods/totp/totp-ops.js';
export type { SmsPhone } from './signin-methods/sms-code/sms-code-ops.js';
export type { ListedSession } from './session-ops.js';
export type { CompletedSignin } from './signin-challenge.js';
export type { ProviderInfo, ProviderOutcome } from './provider-ops.js';
export { isLocalRedirect } from './provider-ops.js';
export { SESSION_LABELS, METHOD_FIGURES } from './signin-methods/index.js';
// The user service's hook points (declaration merging into core/hooks.ts).
import './user-hooks.js';
