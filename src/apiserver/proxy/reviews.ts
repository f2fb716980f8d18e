// Requests kapiserver answers itself instead of forwarding, because forwarded they would describe kapiserver's
// service account rather than the caller: SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview
// (`kubectl auth can-i --list`) and SelfSubjectReview (`kubectl auth whoami`), all judged by kapiserver's authorizer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, StatusError } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { scopeOf } from '../iam/authorizer.ts';
import type { RequestInfo } from '../request.ts';
import { isJson, readBody } from './body.ts';
import { decodeReviewSpec } from './review-protobuf.ts';

const BODY_LIMIT = 256 * 1024;

type Kind = 'SelfSubjectAccessReview' | 'SelfSubjectRulesReview' | 'SelfSubjectReview';

function reviewKind(info: RequestInfo): Kind | undefined {
  if (!info.isKubernetesRequest || info.verb !== 'create' || info.name !== '' || info.subresource !== '')
    return;
  if (info.apiGroup === 'authorization.k8s.io' && info.resource === 'selfsubjectaccessreviews') {
    return 'SelfSubjectAccessReview';
  }
  if (info.apiGroup === 'authorization.k8s.io' && info.resource === 'selfsubjectrulesreviews') {
    return 'SelfSubjectRulesReview';
  }
  if (info.apiGroup === 'authentication.k8s.io' && info.resource === 'selfsubjectreviews')
    return 'SelfSubjectReview';
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** True for the self-reviews kapiserver answers itself (of an authenticated caller). */
export function isAnsweredLocally(request: FastifyRequest): boolean {
  return request.user !== undefined && reviewKind(request.requestInfo) !== undefined;
}

/** Answers the request when kapiserver handles it itself; otherwise undefined (forward it). */
export async function answerLocally(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown | undefined> {
  const info = request.requestInfo;
  const kind = reviewKind(info);
  const user = request.user;
  if (!kind || !user) return undefined;
  const raw = await readBody(request.body, BODY_LIMIT);
  const contentType = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  let spec: Record<string, unknown>;
  if (kind === 'SelfSubjectReview') {
    spec = {}; // nothing to read: it describes the caller
  } else if (contentType === 'application/vnd.kubernetes.protobuf') {
    spec = decodeReviewSpec(kind, raw);
  } else if (isJson(contentType)) {
    let review: unknown;
    try {
      review = JSON.parse(raw.toString('utf8') || '{}');
    } catch {
      throw badRequest(`the ${kind} body is not valid JSON`);
    }
    if (!review || typeof review !== 'object' || Array.isArray(review)) {
      throw badRequest(`the ${kind} body must be an object`);
    }
    const s = (review as Record<string, unknown>).spec;
    spec = (s && typeof s === 'object' ? s : {}) as Record<string, unknown>;
  } else {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `${kind} is answered by kapiserver from application/json or application/vnd.kubernetes.protobuf only`,
    );
  }
  const apiVersion = `${info.apiGroup}/${info.apiVersion}`;
  const base = { kind, apiVersion, metadata: { creationTimestamp: null } };
  reply.code(201).type('application/json');

  if (kind === 'SelfSubjectReview') {
    return {
      ...base,
      status: {
        userInfo: { username: user.name, uid: user.uid, groups: user.groups, extra: user.extra },
      },
    };
  }
  if (kind === 'SelfSubjectRulesReview') {
    const namespace = str(spec.namespace);
    const rules = await ctx.authorizer.rules.rulesFor(user, scopeOf(namespace, ''));
    return {
      ...base,
      spec: { namespace },
      status: {
        resourceRules: rules
          .filter((r) => (r.resources?.length ?? 0) > 0)
          .map((r) => ({
            verbs: r.verbs,
            apiGroups: r.apiGroups ?? [],
            resources: r.resources,
            resourceNames: r.resourceNames,
          })),
        nonResourceRules: rules
          .filter((r) => (r.nonResourceURLs?.length ?? 0) > 0)
          .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        incomplete: false,
      },
    };
  }
  const ra = (
    spec.resourceAttributes && typeof spec.resourceAttributes === 'object'
      ? spec.resourceAttributes
      : undefined
  ) as Record<string, unknown> | undefined;
  const nra = (
    spec.nonResourceAttributes && typeof spec.nonResourceAttributes === 'object'
      ? spec.nonResourceAttributes
      : undefined
  ) as Record<string, unknown> | undefined;
  if (!ra && !nra) throw badRequest('spec.resourceAttributes or spec.nonResourceAttributes is required');
  const asked: RequestInfo = ra
    ? {
        ...info,
        isResourceRequest: true,
        verb: str(ra.verb),
        apiGroup: str(ra.group),
        apiVersion: str(ra.version),
        namespace: str(ra.namespace),
        resource: str(ra.resource),
        subresource: str(ra.subresource),
        name: str(ra.name),
        workspace: '',
        path: '',
      }
    : {
        ...info,
        isResourceRequest: false,
        verb: str(nra!.verb),
        path: str(nra!.path),
        resource: '',
        namespace: '',
      };
  const decision = await ctx.authorizer.authorize(user, asked);
  return {
    ...base,
    spec,
    status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
  };
}
