// The audit event: Kubernetes' audit.k8s.io/v1 Event (level Metadata, stage ResponseComplete) plus KubeSphere's
// Workspace/Cluster fields and a latency, so KubeSphere's auditing pipeline and generic Kubernetes audit tools read it.
// Metadata level only: request and response bodies (passwords, tokens, Secret data) are never part of an event.
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { RequestInfo, UserInfo } from '../request.ts';

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  /** Who authenticated. */
  user: AuditUser;
  /** Who the request acted as, when it impersonated someone (`kubectl --as`). */
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent: string;
  objectRef?: {
    resource: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion: string;
    subresource?: string;
  };
  responseStatus: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  /** Milliseconds from request received to response complete. */
  latencyMs: number;
  /** KubeSphere's extensions of the Kubernetes event. */
  Workspace: string;
  Cluster: string;
}

export interface AuditUser {
  username: string;
  uid?: string;
  groups: string[];
}

export interface AuditInput {
  info?: RequestInfo;
  method: string;
  /** Raw request target (path + query). */
  url: string;
  /** The user the request acted as (the impersonated one, if any). */
  user?: UserInfo;
  /** The authenticated caller, when it impersonated `user`. */
  impersonator?: UserInfo;
  remoteAddress?: string;
  headers: Record<string, string | string[] | undefined>;
  code: number;
  latencyMs: number;
  now?: Date;
}

const MAX_URI = 2048;
const MAX_USER_AGENT = 256;
/** Query parameters whose value may be a credential (OAuth codes, tokens, passwords, client secrets). */
const SECRET_PARAM =
  /token|password|passwd|secret|code|key|auth|credential|session|signature|state|assertion/i;

/** The request URI with the value of every credential-like query parameter replaced; the path is kept as sent. */
export function redactRequestUri(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return truncate(url, MAX_URI);
  const path = url.slice(0, q);
  const parts = url
    .slice(q + 1)
    .split('&')
    .filter((p) => p !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replaceAll('+', ' '));
      } catch {
        // An undecodable key is judged as written.
      }
      return eq !== -1 && SECRET_PARAM.test(key) ? `${rawKey}=[redacted]` : pair;
    });
  return truncate(parts.length ? `${path}?${parts.join('&')}` : path, MAX_URI);
}

function truncate(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

function header(headers: AuditInput['headers'], name: string): string {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** Kubernetes' order: X-Forwarded-For hops, X-Real-Ip, then the peer address; only well-formed IPs, deduplicated. */
function sourceIPs(input: AuditInput): string[] {
  const candidates = [
    ...header(input.headers, 'x-forwarded-for').split(','),
    header(input.headers, 'x-real-ip'),
    input.remoteAddress ?? '',
  ].map((s) => s.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''));
  const out: string[] = [];
  for (const ip of candidates) if (isIP(ip) && !out.includes(ip) && out.length < 8) out.push(ip);
  return out;
}

/** Name, uid and groups; extras are left out (they may carry whatever a token or a header put there). */
function auditUser(user: UserInfo): AuditUser {
  return { username: user.name, uid: user.uid, groups: [...user.groups] };
}

export function buildAuditEvent(input: AuditInput): AuditEvent {
  const now = input.now ?? new Date();
  const received = new Date(now.getTime() - input.latencyMs);
  const info = input.info;
  const caller = input.impersonator ?? input.user;
  const event: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    requestURI: redactRequestUri(input.url),
    verb: info?.verb ?? input.method.toLowerCase(),
    user: caller ? auditUser(caller) : { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    sourceIPs: sourceIPs(input),
    userAgent: truncate(header(input.headers, 'user-agent'), MAX_USER_AGENT),
    responseStatus: { metadata: {}, code: input.code },
    requestReceivedTimestamp: received.toISOString(),
    stageTimestamp: now.toISOString(),
    latencyMs: Math.round(input.latencyMs * 1000) / 1000,
    Workspace: info?.workspace ?? '',
    Cluster: info?.cluster ?? '',
  };
  if (input.impersonator && input.user) event.impersonatedUser = auditUser(input.user);
  if (info?.isResourceRequest && info.resource !== '') {
    event.objectRef = {
      resource: info.resource,
      namespace: info.namespace || undefined,
      name: info.name || undefined,
      apiGroup: info.apiGroup || undefined,
      apiVersion: info.apiVersion,
      subresource: info.subresource || undefined,
    };
  }
  return event;
}
