import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ADMINS,
  ANONYMOUS,
  applyChange,
  AUTHENTICATED,
  EVERYONE,
  groupListProblem,
  holds,
  NOONE,
  OWNER,
  refusal,
  type Principal,
} from './permissions.js';

const alice: Principal = { userId: 'u1', name: 'alice', groups: ['editors'] };
const admin: Principal = { userId: 'u2', name: 'root', groups: [ADMINS] };

test('the system groups: everyone, anyone signed in, the owner only where it owns, nobody', () => {
  assert.ok(holds([EVERYONE], ANONYMOUS));
  assert.ok(!holds([AUTHENTICATED], ANONYMOUS));
  assert.ok(holds([AUTHENTICATED], alice));
  assert.ok(!holds([OWNER], alice));
  assert.ok(holds([OWNER], alice, true));
  assert.ok(!holds([OWNER], ANONYMOUS, true), 'an anonymous caller owns nothing');
  assert.ok(!holds([NOONE], admin));
  assert.ok(!holds([], admin));
});

test('named groups: membership, and only that', () => {
  assert.ok(holds(['editors'], alice));
  assert.ok(!holds(['editors'], admin));
  assert.ok(holds([ADMINS, 'editors'], admin));
  assert.ok(!holds(['Editors'], alice), 'group names are compared exactly');
});

test('a refusal: 401 when signing in could help, else 403', () => {
  assert.equal(refusal([AUTHENTICATED], ANONYMOUS).code, 'not_signed_in');
  assert.equal(refusal([ADMINS], alice).code, 'not_allowed');
  assert.equal(refusal([NOONE], ANONYMOUS).code, 'not_allowed', 'a switched-off permission: nobody can sign in to it');
});

test('changes: replace, add (in order, no duplicates), revoke', () => {
  assert.deepEqual(applyChange(['a'], { permission: 'p', groups: ['b', 'b', 'c'], action: 'replace' }), ['b', 'c']);
  assert.deepEqual(applyChange(['a', 'b'], { permission: 'p', groups: ['b', 'c'], action: 'add' }), ['a', 'b', 'c']);
  assert.deepEqual(applyChange(['a', 'b'], { permission: 'p', groups: ['a', 'x'], action: 'revoke' }), ['b']);
});

test("an account's groups: well-formed names, never a system group", () => {
  assert.equal(groupListProblem([ADMINS, 'editors', 'team.a:b@c-d']), undefined);
  for (const bad of [[EVERYONE], ['sys:anything'], [' padded'], ['x'.repeat(101)], Array(101).fill('g')])
    assert.notEqual(groupListProblem(bad), undefined, bad.join(',').slice(0, 40));
});
