export { createUserService, ANONYMOUS_CALLER, type UserService, type UserServiceDeps } from './user-service.js';
export type { Caller } from './user-context.js';
export type { User } from './user-repo.js';
export { DuplicateUserError } from './user-repo.js';
export { profileView, adminView, identityView } from './user-views.js';
export { USER_PERMISSION_DEFAULTS } from './user-permissions.js';
export { USER_PAGE, REVIEW_ACTIONS } from './admin-ops.js';
export { userErrors } from './user-errors.js';
