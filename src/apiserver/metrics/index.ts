// Prometheus metrics of the API server (prom-client, one Registry per server so tests can run several in a process).
// Request metrics keep KubeSphere's names (ks_server_request_total, ks_server_request_duration_seconds) so existing
// dashboards work; kapiserver's own metrics are prefixed kapiserver_. Served by routes.ts behind the filter chain.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestInfo } from '../request.ts';

/** Result of one /oauth/token request, as C's token endpoint reports it. */
export type TokenResult = 'success' | 'failure';

/** What became of a LoginRecord (iam/loginrecords.ts): written, dropped (queue full, shutdown) or failed. */
export type LoginRecordOutcome = 'written' | 'dropped' | 'failed';

export interface CacheStat {
  resource: string;
  synced: boolean;
  objects: number;
}

export interface ApiMetrics {
  readonly registry: Registry;
  /** Records one finished request (called from the onResponse hook). */
  observeRequest(info: RequestInfo | undefined, code: number, seconds: number): void;
  /** Records one token request: grant type as sent by the client (normalised here), success or the RFC 6749 error. */
  tokenIssued(grantType: string, result: TokenResult, error?: string): void;
  /** A health gauge (1 healthy / 0 not), evaluated at scrape time: token store, Redis, ... */
  addHealthCheck(component: string, check: () => boolean | Promise<boolean>): void;
  /** Cache statistics evaluated at scrape time (informer cache). */
  addCacheStats(source: () => CacheStat[]): void;
  /** Counts audit events per sink and outcome (written, dropped, failed). */
  auditEvent(sink: string, outcome: 'written' | 'dropped' | 'failed', n?: number): void;
  /** Counts LoginRecords by outcome. */
  loginRecords(outcome: LoginRecordOutcome, n?: number): void;
  /** Prometheus text exposition of every metric. */
  render(): Promise<string>;
}

/** Distinct values per label beyond which new values are folded into "other": request paths are client-chosen. */
const MAX_LABEL_VALUES = 200;
const MAX_LABEL_LENGTH = 63;

const GRANT_TYPES = new Set([
  'password',
  'refresh_token',
  'authorization_code',
  'client_credentials',
  'token',
]);
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'server_error',
  'temporarily_unavailable',
]);

/** Long-running requests are counted but kept out of the latency histogram (their duration is the client's choice). */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy', 'connect']);
const LONG_RUNNING_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'log', 'proxy']);

/** Bounds a client-influenced label: truncated, and new values past the cap become "other". */
class LabelCap {
  private readonly seen = new Set<string>();
  value(v: string): string {
    const s = v.length > MAX_LABEL_LENGTH ? v.slice(0, MAX_LABEL_LENGTH) : v;
    if (this.seen.has(s)) return s;
    if (this.seen.size >= MAX_LABEL_VALUES) return 'other';
    this.seen.add(s);
    return s;
  }
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requestLabels = [
    'verb',
    'group',
    'version',
    'resource',
    'subresource',
    'scope',
    'component',
    'code',
  ] as const;
  const requests = new Counter({
    name: 'ks_server_request_total',
    help: 'Requests served, by verb, API group/version, resource, subresource, scope, API prefix and HTTP code.',
    labelNames: requestLabels,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'ks_server_request_duration_seconds',
    help: 'Response latency of non-long-running requests (watch, exec, logs excluded), by verb and resource.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'kapiserver_oauth_token_requests_total',
    help: 'POST /oauth/token outcomes by grant type, result (success|failure) and RFC 6749 error code.',
    labelNames: ['grant_type', 'result', 'error'] as const,
    registers: [registry],
  });
  const audit = new Counter({
    name: 'kapiserver_audit_events_total',
    help: 'Audit events by sink and outcome (written, dropped when the queue is full, failed to deliver).',
    labelNames: ['sink', 'outcome'] as const,
    registers: [registry],
  });
  const loginRecords = new Counter({
    name: 'kapiserver_login_records_total',
    help: 'LoginRecords by outcome: written, dropped (queue full or shutdown), failed (refused, or retries exhausted).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const healthChecks = new Map<string, () => boolean | Promise<boolean>>();
  new Gauge({
    name: 'kapiserver_component_healthy',
    help: 'Health of a shared component at scrape time (1 healthy, 0 not): token store, orchestrator, caches.',
    labelNames: ['component'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [component, check] of healthChecks) {
        let ok = false;
        try {
          ok = await check();
        } catch {
          ok = false;
        }
        this.set({ component }, ok ? 1 : 0);
      }
    },
  });

  const cacheSources: (() => CacheStat[])[] = [];
  const stats = (): CacheStat[] => {
    const out: CacheStat[] = [];
    for (const s of cacheSources) {
      try {
        out.push(...s());
      } catch {
        // A failing source must not break the scrape.
      }
    }
    return out;
  };
  new Gauge({
    name: 'kapiserver_cache_synced',
    help: 'Whether the informer cache of a resource has synced (1) or not (0).',
    labelNames: ['resource'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ resource: s.resource }, s.synced ? 1 : 0);
    },
  });
  new Gauge({
    name: 'kapiserver_cache_objects',
    help: 'Objects held by the informer cache of a resource.',
    labelNames: ['resource'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ resource: s.resource }, s.objects);
    },
  });

  const caps = {
    group: new LabelCap(),
    version: new LabelCap(),
    resource: new LabelCap(),
    sub: new LabelCap(),
    component: new LabelCap(),
  };

  // Label sets per kind of request, built once: per request only a key and two map lookups remain.
  const kinds = new Map<string, RequestKindLabels>();

  return {
    registry,
    observeRequest(info, code, seconds) {
      const kind = requestKind(info);
      let k = kinds.get(kind.key);
      if (!k) {
        k = {
          labels: {
            verb: info ? (info.isResourceRequest ? info.verb : info.verb.toUpperCase()) : 'UNKNOWN',
            group: caps.group.value(info?.apiGroup ?? ''),
            version: caps.version.value(info?.apiVersion ?? ''),
            resource: caps.resource.value(info?.resource ?? ''),
            subresource: caps.sub.value(info?.subresource ?? ''),
            scope: kind.scope,
            // Non-API paths are named by their first segment (oauth, healthz, version, ...), so /oauth/* is visible.
            component: caps.component.value(kind.component),
          },
          withCode: new Map(),
          longRunning:
            info !== undefined &&
            (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource)),
        };
        // Client-chosen paths must not grow this without bound: past the cap, kinds are built per request.
        if (kinds.size < MAX_REQUEST_KINDS) kinds.set(kind.key, k);
      }
      let withCode = k.withCode.get(code);
      if (!withCode) {
        withCode = { ...k.labels, code: String(code) };
        k.withCode.set(code, withCode);
      }
      requests.inc(withCode);
      if (!k.longRunning) latency.observe(k.labels, seconds);
    },
    tokenIssued(grantType, result, error) {
      tokens.inc({
        grant_type: GRANT_TYPES.has(grantType) ? grantType : grantType ? 'other' : 'none',
        result,
        error: result === 'success' ? '' : error && OAUTH_ERRORS.has(error) ? error : 'other',
      });
    },
    addHealthCheck(component, check) {
      healthChecks.set(component, check);
    },
    addCacheStats(source) {
      cacheSources.push(source);
    },
    auditEvent(sink, outcome, n = 1) {
      audit.inc({ sink, outcome }, n);
    },
    loginRecords(outcome, n = 1) {
      loginRecords.inc({ outcome }, n);
    },
    render: () => registry.metrics(),
  };
}

interface RequestKindLabels {
  labels: Record<string, string>;
  withCode: Map<number, Record<string, string>>;
  longRunning: boolean;
}

/** Distinct request kinds whose label sets are kept (each is a handful of short strings). */
const MAX_REQUEST_KINDS = 2000;

/** What the labels of a request depend on, as one string (NUL cannot occur in a request path). */
function requestKind(info: RequestInfo | undefined): { key: string; scope: string; component: string } {
  if (!info) return { key: '', scope: '', component: '' };
  const scope = info.isResourceRequest ? scopeOf(info) : '';
  const component = info.apiPrefix || firstSegment(info.path);
  const key = `${info.isResourceRequest ? 'r' : 'n'}\0${info.verb}\0${info.apiGroup}\0${info.apiVersion}\0${info.resource}\0${info.subresource}\0${scope}\0${component}`;
  return { key, scope, component };
}

/** Kubernetes' scope label: resource (one named object), namespace, or cluster. */
function scopeOf(info: RequestInfo): string {
  if (info.name !== '') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.workspace !== '') return 'workspace';
  return 'cluster';
}

function firstSegment(path: string): string {
  return path.split('/').find((s) => s !== '') ?? '';
}
