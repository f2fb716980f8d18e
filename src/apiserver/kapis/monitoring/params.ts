// The query parameters of monitoring.kubesphere.io/v1alpha3 with KubeSphere's meanings (pkg/kapis/monitoring/v1alpha3
// helper.go): `time` (instant query, default now) or `start`+`end`+`step` (range, step default 10m), `metrics_filter`
// and `resources_filter` (regexes), `sort_metric`/`sort_type`/`page`/`limit`, `type`. Where KubeSphere passes a bad
// value on to Prometheus or ignores it, kapiserver answers 400 with a Status naming the parameter.
import { parseDuration } from '../../../config/duration.ts';
import { badRequest } from '../../../k8s/status.ts';
import { linearRegExp } from './linear-regexp.ts';
import { isName, LABEL, SUBDOMAIN } from './schemas.ts';

/** Prometheus refuses a range with more points per series than this (its own limit, 11,000). */
export const MAX_POINTS = 11_000;
/** Longest regex accepted in a filter. */
const MAX_FILTER_LENGTH = 4096;
const DEFAULT_STEP_SECONDS = 600;
const DEFAULT_PAGE = 1;
const DEFAULT_LIMIT = 5;

export type TimeWindow =
  | { kind: 'instant'; time: number }
  | { kind: 'range'; start: number; end: number; step: number };

export interface MetricsQuery {
  /** Selects metric names (unanchored search, as Go's regexp.MatchString); runs in linear time. */
  metricsFilter: RegExp;
  /** A regex over resource names, passed to Prometheus ('.*' when absent). */
  resourcesFilter: string;
  /** Unix seconds. */
  window: TimeWindow;
  sort?: { metric: string; ascending: boolean; page: number; limit: number };
  type: string;
  /** namespaced_resources_filter, as `namespace/pod` pairs. */
  namespacedResources?: { namespace: string; pod: string }[];
}

const invalid = (parameter: string, message: string) =>
  badRequest(`invalid query parameter ${parameter}: ${message}`, [
    { reason: 'FieldValueInvalid', field: parameter, message },
  ]);

const clip = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}...` : s);

/** Parses the query string of a monitoring request; `now` in Unix seconds. */
export function parseMetricsQuery(search: string, now: number): MetricsQuery {
  const params = new URLSearchParams(search);
  const get = (name: string) => params.get(name) ?? '';
  const query: MetricsQuery = {
    metricsFilter: metricsFilterOf(get('metrics_filter')),
    resourcesFilter: filterText('resources_filter', get('resources_filter')) || '.*',
    window: windowOf(get('time'), get('start'), get('end'), get('step'), now),
    type: get('type'),
  };
  const sortMetric = get('sort_metric');
  if (sortMetric !== '') {
    query.sort = {
      metric: sortMetric,
      ascending: get('sort_type') === 'asc',
      page: positive('page', get('page'), DEFAULT_PAGE),
      limit: positive('limit', get('limit'), DEFAULT_LIMIT),
    };
  }
  const namespaced = get('namespaced_resources_filter');
  if (namespaced !== '') query.namespacedResources = namespacedResourcesOf(namespaced);
  return query;
}

function filterText(parameter: string, raw: string): string {
  if (raw.length > MAX_FILTER_LENGTH) {
    throw invalid(parameter, `longer than ${MAX_FILTER_LENGTH} characters`);
  }
  // A control character can only be an attack or a mistake; Prometheus' lexer refuses a raw newline anyway.
  if ([...raw].some((c) => c < ' ' || c === '\u007f'))
    throw invalid(parameter, 'contains a control character');
  return raw;
}

function metricsFilterOf(raw: string): RegExp {
  const text = filterText('metrics_filter', raw);
  if (text === '') return /(?:)/;
  try {
    return linearRegExp(text);
  } catch {
    throw invalid(
      'metrics_filter',
      `"${clip(text)}" is not a regular expression kapiserver can run (RE2 syntax, no backreferences or lookaround)`,
    );
  }
}

function unixSeconds(parameter: string, raw: string): number {
  if (!/^\d{1,11}$/.test(raw)) throw invalid(parameter, `"${clip(raw)}" is not a Unix time in seconds`);
  return Number(raw);
}

function windowOf(time: string, start: string, end: string, step: string, now: number): TimeWindow {
  if (start === '' && end === '') {
    return { kind: 'instant', time: time === '' ? now : unixSeconds('time', time) };
  }
  if (start === '' || end === '') {
    const missing = start === '' ? 'start' : 'end';
    throw invalid(
      missing,
      "'time' and the combination of 'start' and 'end' are mutually exclusive; give both",
    );
  }
  // As KubeSphere: a range (start and end) takes precedence over `time`.
  const from = unixSeconds('start', start);
  const to = unixSeconds('end', end);
  if (from > to) throw invalid('end', "'start' must be before 'end'");
  const stepSeconds = step === '' ? DEFAULT_STEP_SECONDS : stepOf(step);
  const points = Math.floor((to - from) / stepSeconds) + 1;
  if (points > MAX_POINTS) {
    throw invalid(
      'step',
      `${clip(step)} makes ${points} points from start to end; Prometheus answers at most ${MAX_POINTS}`,
    );
  }
  return { kind: 'range', start: from, end: to, step: stepSeconds };
}

function stepOf(raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined) throw invalid('step', `"${clip(raw)}" is not a duration such as 60s or 10m`);
  if (ms <= 0) throw invalid('step', 'must be positive');
  return ms / 1000;
}

function positive(parameter: string, raw: string, fallback: number): number {
  if (raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw invalid(parameter, `"${clip(raw)}" is not a positive integer`);
  }
  return Number(raw);
}

function namespacedResourcesOf(raw: string): { namespace: string; pod: string }[] {
  // KubeSphere trims a trailing `$` (the console ends every filter with one).
  const text = filterText('namespaced_resources_filter', raw).replace(/\$+$/, '');
  return text.split('|').map((pair) => {
    const [namespace, pod, extra] = pair.split('/');
    if (extra !== undefined || !isName(LABEL, namespace ?? '') || !isName(SUBDOMAIN, pod ?? '')) {
      throw invalid('namespaced_resources_filter', `"${clip(pair)}" is not <namespace>/<pod>`);
    }
    return { namespace, pod };
  });
}
