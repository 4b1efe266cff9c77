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

const ENTRIES: PermissionMap = {
  read: [EVERYONE],
  create: [AUTHENTICATED],
  change: [OWNER, ADMINS],
  manage: [ADMINS],
  closed: [NOONE],
};
/** A service's entries as the permission store hands them out (kept: no promise). */
const permissions: ServicePermissions = {
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
