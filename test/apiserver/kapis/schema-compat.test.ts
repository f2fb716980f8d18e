// Request schemas accept what the /kapis handlers accepted before they validated: null labels, annotations and rules
// (read as absent), a PUT body without metadata.name (taken from the path), a non-string currentPassword when an admin
// changes someone else's password (not read). A wrong type inside a nullable map is still named by its field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { PasswordReset, roleSchema, UserSchema } from '../../../src/apiserver/kapis/iam/schemas.ts';
import { causesOf, type SchemaFailure } from '../../../src/apiserver/validation.ts';

const check = (schema: TSchema, value: unknown) => {
  const v = Compile(schema);
  return v.Check(value) ? [] : causesOf([...v.Errors(value)] as SchemaFailure[], 'body');
};

test('bodies accepted before validation are still accepted', () => {
  const role = roleSchema('GlobalRole', 'iam.kubesphere.io/v2beta1');
  assert.deepEqual(check(role, { rules: null }), []);
  assert.deepEqual(check(role, { metadata: { labels: null, annotations: null }, rules: [] }), []);
  assert.deepEqual(check(UserSchema, { metadata: { labels: null, annotations: null } }), []);
  assert.deepEqual(check(UserSchema, { spec: { email: 'ü@example.de' } }), []);
  assert.deepEqual(check(PasswordReset, { password: 'Passw0rd', currentPassword: 7 }), []);
});

test('a wrong value inside a nullable map names the field once', () => {
  assert.deepEqual(check(UserSchema, { metadata: { labels: { app: 7 } } }), [
    { field: 'metadata.labels.app', reason: 'FieldValueTypeInvalid', message: 'must be string' },
  ]);
  assert.deepEqual(
    check(UserSchema, { spec: { email: 'no-at-sign' } }).map((c) => c.field),
    ['spec.email'],
  );
});
