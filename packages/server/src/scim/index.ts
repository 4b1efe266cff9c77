// SCIM 2.0 provisioning (issue 45, item 1; docs/users.md "SCIM"), registered under /scim/v2 by roost.ts.
export { scimRoutes, SCIM_PATH } from './scim-routes.js';
