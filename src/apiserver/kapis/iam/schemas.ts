// Route schemas (typebox) of iam.kubesphere.io/v1alpha2 for the swagger document. Handlers validate bodies
// themselves (400 Status naming the field), see route.ts.
import Type from 'typebox';
import { ListQueryString, Nullable, ObjectMeta, StringMap } from '../schemas.ts';

export const MIN_PASSWORD = 6;
/** What the user routes accept as an e-mail address. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** bcrypt only reads the first 72 bytes. */
export const MAX_PASSWORD_BYTES = 72;

export const SuccessSchema = Type.Object(
  { message: Type.String() },
  { description: 'KubeSphere success body' },
);

export const UserSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ default: 'iam.kubesphere.io/v1alpha2' })),
    kind: Type.Optional(Type.String({ default: 'User' })),
    // A PUT takes the name from the path; a body without metadata or spec changes neither.
    metadata: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String()),
          labels: Type.Optional(Nullable(StringMap)),
          annotations: Type.Optional(Nullable(StringMap)),
        },
        { additionalProperties: true },
      ),
    ),
    spec: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ pattern: EMAIL.source, description: 'E-mail address' })),
          lang: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
          displayName: Type.Optional(Type.String()),
          groups: Type.Optional(Type.Array(Type.String())),
          password: Type.Optional(
            Type.String({ description: 'Initial password (create only; write-only, never returned)' }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    status: Type.Optional(
      Type.Object(
        {
          state: Type.Optional(Type.String({ description: 'Active | Disabled | AuthLimitExceeded' })),
          reason: Type.Optional(Type.String()),
          lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
          lastLoginTime: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { title: 'User', description: 'iam.kubesphere.io/v1alpha2 User (passwords are never returned)' },
);

export const PasswordReset = Type.Object(
  {
    // Not typed: only a change of your own password reads it (any other value is "incorrect old password").
    currentPassword: Type.Optional(
      Type.Unknown({
        description: 'Required when changing your own password (a string)',
        format: 'password',
      }),
    ),
    password: Type.String({
      description: `New password, ${MIN_PASSWORD}..${MAX_PASSWORD_BYTES} bytes`,
      format: 'password',
    }),
  },
  { title: 'PasswordReset' },
);

export const PolicyRule = Type.Object(
  {
    verbs: Type.Array(Type.String(), { minItems: 1 }),
    apiGroups: Type.Optional(Type.Array(Type.String())),
    resources: Type.Optional(Type.Array(Type.String())),
    resourceNames: Type.Optional(Type.Array(Type.String())),
    nonResourceURLs: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'PolicyRule', description: 'A Kubernetes RBAC PolicyRule' },
);

/** A role object (GlobalRole, ClusterRole or Role). */
export function roleSchema(kind: string, apiVersion: string) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String({ default: apiVersion })),
      kind: Type.Optional(Type.String({ default: kind })),
      // A PUT takes the name from the path: a body may leave metadata out.
      metadata: Type.Optional(ObjectMeta),
      rules: Type.Optional(
        Nullable(
          Type.Array(PolicyRule, {
            description:
              'Ignored when the iam.kubesphere.io/aggregation-roles annotation is set: the rules are then those of the named role templates',
          }),
        ),
      ),
    },
    { title: kind, additionalProperties: true },
  );
}

export const RoleListQuery = Type.Object(
  {
    ...ListQueryString.properties,
    aggregateTo: Type.Optional(
      Type.String({ description: 'Only the role templates the named role aggregates' }),
    ),
  },
  {
    additionalProperties: Type.String(),
    description: 'Any other parameter filters on a field of that name (unknown fields match nothing)',
  },
);

export const Member = Type.Object(
  {
    username: Type.String({ description: 'User name' }),
    roleRef: Type.String({ description: 'Name of the role to bind' }),
  },
  { title: 'Member' },
);

export function memberListQuery(roleParam: string) {
  return Type.Object(
    {
      ...ListQueryString.properties,
      [roleParam]: Type.Optional(Type.String({ description: 'Only members bound to this role' })),
    },
    {
      additionalProperties: Type.String(),
      description: 'Any other parameter filters on a field of that name (unknown fields match nothing)',
    },
  );
}
