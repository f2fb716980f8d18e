// Route schema validation: a fastify validator compiler for TypeBox schemas, and the failures it finds as Kubernetes
// Status causes (`field`, `reason`, `message`). Messages name the field and the rule, never the value sent, so a
// password or secret in a request is never echoed.
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import type { Validator } from 'typebox/compile';
import { badRequest, type StatusCause, type StatusError } from '../k8s/status.ts';

/** One schema failure; TypeBox reports them in the Ajv shape fastify expects. */
export type SchemaFailure = FastifySchemaValidationError;

type Check = ((data: unknown) => boolean | Promise<boolean>) & { errors?: SchemaFailure[] };

/** Compiled checks, shared by the routes that reuse one schema object (every /kapis route and its /kapi alias). */
const compiled = new WeakMap<object, Validator>();

/** TypeBox's compiler (about 700 modules), loaded by the first request that needs a check, not at start. */
let compiler: typeof import('typebox/compile') | undefined;

/**
 * Validates a request part against its TypeBox schema; `prepare` maps the parsed part to what the schema describes
 * (the /oauth form parser yields a Map). The schema is compiled on the route's first request, not at start: start-up
 * registers well over a hundred schemas and most are never used by a given server. Until the compiler is loaded the
 * check answers a promise, which fastify awaits (its async-validator path); after that it is synchronous.
 */
export function typeboxValidatorCompiler(
  prepare: (data: unknown) => unknown = (data) => data,
): FastifySchemaCompiler<TSchema> {
  return ({ schema }) => {
    const run = (Compile: typeof import('typebox/compile').Compile, data: unknown): boolean => {
      let validator = compiled.get(schema);
      if (!validator) {
        validator = Compile(schema);
        compiled.set(schema, validator);
      }
      const value = prepare(data);
      if (validator.Check(value)) return true;
      check.errors = [...validator.Errors(value)] as SchemaFailure[];
      return false;
    };
    const check: Check = (data) => {
      if (compiler) return run(compiler.Compile, data);
      return import('typebox/compile').then((loaded) => {
        compiler = loaded;
        return run(loaded.Compile, data);
      });
    };
    // fastify's type brands promises it accepts (SafePromiseLike); at run time it awaits any thenable.
    return check as ReturnType<FastifySchemaCompiler<TSchema>>;
  };
}

/** Kubernetes field path of a JSON pointer: `/rules/0/verbs` is `rules[0].verbs`, `/0/username` is `[0].username`. */
export function fieldPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return path;
}

/** Kubernetes' cause type (field.ErrorType) for a failed schema keyword. */
function reasonOf(keyword: string): string {
  switch (keyword) {
    case 'required':
      return 'FieldValueRequired';
    case 'type':
      return 'FieldValueTypeInvalid';
    case 'enum':
    case 'const':
    case 'anyOf':
      return 'FieldValueNotSupported';
    case 'maxLength':
      return 'FieldValueTooLong';
    case 'maxItems':
      return 'FieldValueTooMany';
    default:
      return 'FieldValueInvalid';
  }
}

/** One cause per field (the first failure found for it); `root` names the request part itself (e.g. "body"). */
export function causesOf(failures: readonly SchemaFailure[], root: string): StatusCause[] {
  const byField = new Map<string, StatusCause>();
  for (const f of failures) {
    // A failure inside a field says more than the ones about the field as a whole: a map whose values must be
    // strings also reports the bad value as an "additional property", a nullable field also reports "must be null".
    if (f.keyword !== 'required' && failures.some((o) => o.instancePath.startsWith(`${f.instancePath}/`)))
      continue;
    const missing =
      f.keyword === 'required' ? (f.params.requiredProperties as string[] | undefined) : undefined;
    const fields = missing
      ? missing.map((p) => fieldPath(`${f.instancePath}/${p}`))
      : [fieldPath(f.instancePath)];
    for (const field of fields) {
      if (byField.has(field || root)) continue;
      const message = missing ? 'Required value' : (f.message ?? 'Invalid value');
      byField.set(field || root, { field: field || root, reason: reasonOf(f.keyword), message });
    }
  }
  return [...byField.values()];
}

/** fastify's schemaErrorFormatter for Status routes: 400 BadRequest listing each offending field. */
export function statusFromValidation(failures: readonly SchemaFailure[], part: string): StatusError {
  const causes = causesOf(failures, part);
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return badRequest(`the request ${part} is invalid: ${summary}`, causes);
}
