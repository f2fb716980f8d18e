// The creator of a namespace is the caller, on the forwarded path as on the tenant API (stance 7 of the reference's
// section 10): the namespace controller makes the `kubesphere.io/creator` annotation's user the namespace's admin on
// first sight, so a client naming someone else there would hand that user (or itself, through a name it chose)
// admin rights. A forwarded create gets the authenticated caller (the impersonated user, when impersonating) as its
// creator, whatever the body says, and goes upstream as JSON (any encoding the orchestrator reads is accepted).
// Updates and patches of any kind and encoding (server-side apply and the status and finalize subresources included)
// are dry-run and refused with 422 when they would change the stored creator; an apply that creates the namespace
// may name only the caller, or no creator.
import type { FastifyRequest } from 'fastify';
import { decodeJson } from '../../k8s/bounded-decode.ts';
import { badRequest, invalid, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { CREATOR_ANNOTATION } from '../iam/labels.ts';
import type { RequestInfo } from '../request.ts';
import { bufferBody, type GuardedBody, isJson, WRITE_VERBS } from './body.ts';
import { dryRun, rec, storedObject } from './write-preview.ts';

const CREATOR_FIELD = `metadata.annotations[${CREATOR_ANNOTATION}]`;

/** Forwarded writes of core namespaces (any subresource): cheap and synchronous. */
export function isNamespaceWrite(info: RequestInfo): boolean {
  return (
    info.isKubernetesRequest &&
    info.isResourceRequest &&
    info.apiGroup === '' &&
    info.resource === 'namespaces' &&
    WRITE_VERBS.has(info.verb)
  );
}

/**
 * Returns the body to send upstream for a forwarded namespace write (the caller as creator on create; the checked
 * body otherwise), or undefined when it goes through untouched. Throws the StatusError answering a refused write.
 */
export async function guardNamespaceCreator(
  ctx: ServerContext,
  request: FastifyRequest,
): Promise<GuardedBody | undefined> {
  const caller = request.user?.name;
  if (!caller) throw unauthorized();
  const info = request.requestInfo;
  if (info.verb === 'create') return withCreator(ctx, request, caller);
  // No name: a write to the collection, which the orchestrator refuses by itself.
  if (!info.name) return undefined;
  const stored = await storedObject(ctx, `/api/v1/namespaces/${encodeURIComponent(info.name)}`);
  const guarded = await bufferBody(request);
  const wanted = creatorOf(await dryRun(ctx, request, guarded));
  if (stored ? wanted !== creatorOf(stored) : wanted !== undefined && wanted !== caller) {
    const message = stored
      ? 'cannot be changed through /api: it names the user the namespace was created by'
      : 'must name the caller, who creates the namespace';
    throw invalid('', 'Namespace', info.name, [
      { reason: 'FieldValueForbidden', field: CREATOR_FIELD, message },
    ]);
  }
  return guarded;
}

function creatorOf(obj: unknown): string | undefined {
  const value = rec(rec(rec(obj).metadata).annotations)[CREATOR_ANNOTATION];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The create's body as JSON with `caller` as its creator (re-encoded: upstream reads exactly what was judged). A
 * JSON body is decoded here; any other encoding (protobuf: `kubectl create namespace` since 1.32; YAML) is decoded
 * by the orchestrator, as the object a dry run of the create would store, less what the server sets on create.
 */
async function withCreator(
  ctx: ServerContext,
  request: FastifyRequest,
  caller: string,
): Promise<GuardedBody> {
  const buffered = await bufferBody(request);
  const body = isJson(buffered.contentType)
    ? decodeJson(buffered.body.toString('utf8'))
    : withoutServerFields(await dryRun(ctx, request, buffered));
  if (!isObject(body)) throw badRequest('the request body must be a JSON object');
  const { metadata = {} } = body;
  if (!isObject(metadata)) throw badRequest('metadata must be an object');
  const { annotations } = metadata;
  if (annotations !== undefined && annotations !== null && !isObject(annotations)) {
    throw badRequest('metadata.annotations must be an object');
  }
  const created = {
    ...body,
    metadata: { ...metadata, annotations: { ...annotations, [CREATOR_ANNOTATION]: caller } },
  };
  return { body: Buffer.from(JSON.stringify(created)), contentType: 'application/json' };
}

/** What a create's answer carries that the server sets itself (a resourceVersion would even fail the create). */
const SERVER_SET = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink'];

function withoutServerFields(obj: unknown): unknown {
  if (!isObject(obj) || !isObject(obj.metadata)) return obj;
  const { status: _status, ...rest } = obj;
  const metadata = Object.fromEntries(Object.entries(obj.metadata).filter(([k]) => !SERVER_SET.includes(k)));
  return { ...rest, metadata };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
