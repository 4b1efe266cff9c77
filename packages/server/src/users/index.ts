export { createUserService, ANONYMOUS_CALLER, type UserService } from './user-service.js';
export type { Caller } from './user-context.js';
export type { User } from './user-repo.js';
export { DuplicateUserError } from './user-repo.js';
export { USER_PAGE, REVIEW_ACTIONS } from './admin-ops.js';
export { userErrors } from './user-errors.js';
