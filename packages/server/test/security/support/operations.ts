import type { Roost } from '../../../src/roost.js';
import { userOperations } from '../../../src/http/protocol/user-protocol.js';
import { dataStoreOperations } from '../../../src/http/protocol/datastore-protocol.js';
import {
  OPERATIONS as FILE_OPERATIONS,
  READ_ONLY as FILE_READ_ONLY,
  UPLOADS as FILE_UPLOADS,
} from '../../../src/http/routes/filestore-routes.js';

/**
 * Every operation of the three services, read off the route tables themselves (not a copy of
 * them), so an operation added to a route module shows up here at once, and the tests that
 * require an entry per operation (property tests, access matrix, CSRF) fail until it has one.
 */
export type Service = 'users' | 'datastore' | 'filestore';

export interface OperationInfo {
  service: Service;
  /** The wire name; an alias (`updateMail`) is an operation of its own here. */
  op: string;
  /** Changes nothing: cross-site cookie requests may call it. */
  read: boolean;
  /** Also answers DELETE (user service `disable`, `delete`). */
  del: boolean;
  /** Takes file contents (a multipart part or a raw `@write` body). */
  upload: boolean;
}

/** The pseudo-operation of a plain GET of `/<store>/<path>`: a download. */
export const DOWNLOAD = 'download';

export function operationsOf(roost: Roost): OperationInfo[] {
  const out: OperationInfo[] = [];
  for (const route of userOperations(roost.users, roost.config)) {
    for (const op of [route.op, ...(route.aliases ?? [])]) {
      out.push({ service: 'users', op, read: route.read === true, del: route.del === true, upload: false });
    }
  }
  const store = roost.dataStores.get(roost.dataStores.names[0] ?? '');
  if (!store) throw new Error('the security tests need a data store');
  for (const route of dataStoreOperations(store))
    out.push({ service: 'datastore', op: route.op, read: route.read === true, del: false, upload: false });
  for (const op of FILE_OPERATIONS)
    out.push({ service: 'filestore', op, read: FILE_READ_ONLY.has(op), del: false, upload: FILE_UPLOADS.has(op) });
  out.push({ service: 'filestore', op: DOWNLOAD, read: true, del: false, upload: false });
  return out;
}

/**
 * The parameters each operation reads (from its input schema), per service. The property tests
 * mutate these; an operation missing here fails the coverage test.
 */
export const FIELDS: Record<Service, Record<string, readonly string[]>> = {
  users: {
    ping: [],
    challenge: [],
    token: ['identity', 'password'],
    signin: ['identity', 'password'],
    signout: [],
    identity: [],
    name: [],
    profile: [],
    authenticated: ['groups', 'group'],
    allowed: ['permission', 'permissions'],
    signupDirect: ['name', 'email', 'password', 'realname', 'notify', 'data'],
    signupOptin: ['name', 'email', 'password', 'realname', 'notify', 'data'],
    signupReview: ['name', 'email', 'password', 'realname', 'notify', 'data'],
    signupSendpw: ['name', 'email', 'realname', 'notify', 'data'],
    signupUid: ['password', 'email', 'realname', 'notify', 'data'],
    activate: ['token'],
    update: ['realname', 'notify', 'data'],
    updatePassword: ['password', 'newpassword'],
    updateEmail: ['email'],
    updateMail: ['email'],
    verifyEmail: ['email'],
    verifyEmail2: ['token'],
    resetPassword: ['identity'],
    resetPassword2: ['token', 'newpassword'],
    message: ['message'],
    disable: [],
    delete: [],
    review: ['identity', 'action'],
    getUser: ['identity'],
    setUser: ['identity', 'values'],
    removeUser: ['identity'],
    list: ['active', 'pending', 'name', 'email', 'search', 'group', 'start', 'size', 'sort', 'order'],
    identities: ['active', 'pending', 'name', 'email', 'search', 'group', 'start', 'size', 'sort', 'order'],
    getPermissions: [],
    setPermissions: ['permissions'],
  },
  datastore: {
    getItem: ['key', 'id', 'items'],
    newItem: ['items', 'key', 'value', 'owner'],
    setItem: ['items', 'key', 'id', 'value', 'owner'],
    removeItem: ['key', 'id', 'items'],
    list: ['key', 'sort', 'order', 'start', 'size', 'owner'],
    keys: ['order', 'start', 'size', 'owner'],
    getOwner: ['key', 'id', 'items'],
    setOwner: ['key', 'id', 'items', 'owner', 'newOwner'],
    allowed: ['permission', 'permissions'],
    getPermissions: [],
    setPermissions: ['permissions'],
    ping: [],
  },
  // `path` everywhere: the jQuery connector repeats the path in the body.
  filestore: {
    getItem: ['path'],
    newItem: ['path', 'name', 'type', 'contents', 'decode', 'mime', 'cache', 'header'],
    setItem: ['path', 'contents', 'decode', 'mime', 'cache', 'header'],
    read: ['path'],
    write: ['path', 'contents', 'mime'],
    move: ['path', 'newpath'],
    removeItem: ['path', 'recursive'],
    list: ['path', 'type', 'sort', 'order', 'start', 'size'],
    allowed: ['path', 'permission', 'permissions'],
    getPermissions: ['path'],
    setPermissions: ['path', 'permissions'],
    getOwner: ['path'],
    setOwner: ['path', 'owner', 'newOwner'],
    ping: ['path'],
    directUpload: ['path', 'size', 'mime'],
    directFinish: ['path', 'upload'],
    link: ['path'],
    [DOWNLOAD]: [],
  },
};
