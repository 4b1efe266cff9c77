import { test } from 'node:test';
import assert from 'node:assert/strict';
import { administers, grantsOf } from './grants.js';
import {
  ADMINS,
  ANONYMOUS,
  AUTHENTICATED,
  EVERYONE,
  NOONE,
  OWNER,
  type PermissionMap,
  type Principal,
} from './permissions.js';
import type { ServicePermissions } from './permissions.js';
import type { KeyScope } from './api-keys.js';

const ENTRIES: PermissionMap = {
  read: [EVERYONE],
  create: [AUTHENTICATED],
  change: [OWNER, ADMINS],
  manage: [ADMINS],
  closed: [NOONE],
};
/** A service's entries as the permission store hands them out (kept: no promise). */
const permissions: ServicePermissions = {
  service: 'things',
  keyAccess: { read: 'read', create: 'write', change: 'write', manage: 'manage' },
  entries: () => ENTRIES,
  change: async () => ENTRIES,
  names: () => Object.keys(ENTRIES),
};
const alice: Principal = { userId: 'u1', name: 'alice', groups: [] };
const admin: Principal = { userId: 'u2', name: 'root', groups: [ADMINS] };
const grantsFor = (principal: Principal) => {
  const grants = grantsOf(permissions, principal);
  assert.ok(!(grants instanceof Promise), 'kept entries give grants without a promise');
  return grants;
};

test('scope: on everything, on what the caller owns, or not at all', () => {
  const a = grantsFor(alice);
  assert.deepEqual(
    ['read', 'create', 'change', 'manage', 'closed', 'unknown'].map((p) => a.scope(p)),
    ['all', 'all', 'own', 'none', 'none', 'none'],
  );
  assert.equal(grantsFor(admin).scope('change'), 'all');
  assert.equal(grantsFor(ANONYMOUS).scope('change'), 'none', 'an anonymous caller owns nothing');
});

test('covers: an owned scope covers what the caller owns, nothing owned by nobody or another', () => {
  const a = grantsFor(alice);
  assert.ok(a.covers('change', { owner: 'u1' }));
  assert.ok(!a.covers('change', { owner: 'u2' }));
  assert.ok(!a.covers('change', { owner: null }));
  assert.ok(grantsFor(admin).covers('change', { owner: null }));
});

test('require answers the scope or throws the refusal: 401 where signing in could help, else 403', () => {
  assert.equal(grantsFor(alice).require('change'), 'own');
  assert.throws(() => grantsFor(ANONYMOUS).require('create'), { code: 'not_signed_in' });
  assert.throws(() => grantsFor(alice).require('manage'), { code: 'not_allowed' });
  assert.throws(() => grantsFor(ANONYMOUS).require('closed'), { code: 'not_allowed' });
});

test('administers: members of admins only; a name or id that reads "admins" is no membership', () => {
  assert.equal(administers(admin), true);
  assert.equal(administers(alice), false);
  assert.equal(administers(ANONYMOUS), false);
  assert.equal(administers({ userId: 'admins', name: 'admins', groups: [] }), false);
  assert.equal(administers({ userId: null, name: null, groups: [ADMINS] }), false);
});

test("an API key's grants are its scopes on this service, and what everyone may do; never a group's", () => {
  const key = (scopes: KeyScope[], groups: string[] = []): Principal => ({
    userId: null,
    name: 'key:k1',
    groups,
    key: { id: 'k1', scopes },
  });
  const reader = grantsFor(key([{ kind: 'store', name: 'things', access: ['read'] }]));
  assert.deepEqual(
    ['read', 'create', 'change', 'manage', 'closed', 'constructor'].map((p) => reader.scope(p)),
    ['all', 'none', 'none', 'none', 'none', 'none'],
  );
  assert.throws(() => reader.require('change'), { code: 'not_allowed', message: /scopes do not cover change/ });
  const writer = grantsFor(key([{ kind: 'store', name: '*', access: ['write'] }]));
  assert.equal(writer.scope('change'), 'all');
  assert.ok(writer.covers('change', { owner: 'u1' }), 'a write scope covers what anybody owns');
  assert.equal(writer.scope('manage'), 'none');
  assert.equal(grantsFor(key([{ kind: 'store', name: 'other', access: ['read', 'write'] }])).scope('create'), 'none');
  assert.equal(grantsFor(key([{ kind: 'collection', name: 'things', access: ['write'] }])).scope('create'), 'none');
  assert.equal(grantsFor(key([], [ADMINS])).scope('manage'), 'none', 'a group on a key counts for nothing');
  assert.equal(administers(key([{ kind: 'store', name: '*', access: ['manage'] }])), false);
  assert.equal(grantsFor(key([])).scope('read'), 'all', 'open to everyone is open to a key');
});
