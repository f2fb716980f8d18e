// The answer of monitoring.kubesphere.io/v1alpha3 in KubeSphere's shape (pkg/models/monitoring/types.go and
// pkg/simple/client/monitoring/types.go): `{results: [{metric_name, data: {resultType, result}, error?}], page?,
// total_page?, total_item?}`, each result value `{metric?, value | values}` plus the metering fields, empty here,
// that KubeSphere writes on every value. Sorting and paging rank resources by one metric (sort_page.go).
import type { QueryData, Series } from './prometheus.ts';

export type Point = [number, string];

export interface MetricValue {
  metric?: Record<string, string>;
  value?: Point;
  values?: Point[];
  min_value: string;
  max_value: string;
  avg_value: string;
  sum_value: string;
  fee: string;
  resource_unit: string;
  currency_unit: string;
}

export interface Metric {
  metric_name: string;
  data: { resultType?: 'vector' | 'matrix'; result?: MetricValue[] };
  error?: string;
}

export interface Metrics {
  results: Metric[];
  page?: number;
  total_page?: number;
  total_item?: number;
}

const METERING_FIELDS = {
  min_value: '',
  max_value: '',
  avg_value: '',
  sum_value: '',
  fee: '',
  resource_unit: '',
  currency_unit: '',
};

/** A value slot of a resource the metric has no sample for (after sorting). */
const emptyValue = (): MetricValue => ({ ...METERING_FIELDS });

/** One metric's answer from Prometheus' data; `keep` drops series (namespaced_resources_filter). */
export function metricOf(
  name: string,
  data: QueryData,
  keep?: (labels: Record<string, string>) => boolean,
): Metric {
  const result = data.result.filter((s) => !keep || keep(s.metric ?? {})).map(metricValueOf);
  return {
    metric_name: name,
    data: { resultType: data.resultType, ...(result.length > 0 ? { result } : {}) },
  };
}

function metricValueOf(series: Series): MetricValue {
  const labels = series.metric ?? {};
  return {
    ...(Object.keys(labels).length > 0 ? { metric: labels } : {}),
    ...(series.value ? { value: series.value } : {}),
    ...(series.values ? { values: series.values } : {}),
    ...METERING_FIELDS,
  };
}

export const failedMetric = (name: string, error: string): Metric => ({ metric_name: name, data: {}, error });

/** A metric with no data at all (a time before the namespace existed). */
export const noHit = (name: string): Metric => ({ metric_name: name, data: {} });

/** A single sample computed by kapiserver itself (platform and workspace statistics). */
export function sampleMetric(name: string, time: number, value: number): Metric {
  return {
    metric_name: name,
    data: { resultType: 'vector', result: [{ value: [time, String(value)], ...METERING_FIELDS }] },
  };
}

function numberOf(v: MetricValue): number | undefined {
  if (!v.value) return undefined;
  const s = v.value[1];
  if (s === '+Inf') return Number.POSITIVE_INFINITY;
  if (s === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(s);
}

/**
 * Ranks the resources named by label `identifier` by the instant metric `target` (absent samples last, then NaN;
 * ties by name), lays every instant metric's values out in that order (a resource a metric lacks gets an empty slot,
 * so the i-th value of every metric is the same resource), and keeps page `page` of `limit` resources.
 */
export function sortAndPage(
  metrics: Metrics,
  sort: { metric: string; ascending: boolean; page: number; limit: number },
  identifier: string,
): Metrics {
  const ranked = (m: Metric) => m.data.resultType === 'vector' && !m.error;
  const nameOf = (v: MetricValue) => v.metric?.[identifier] ?? '';
  const order: string[] = [];
  const target = metrics.results.find((m) => ranked(m) && m.metric_name === sort.metric);
  if (target) {
    const sorted = [...(target.data.result ?? [])].sort((a, b) => compare(a, b, sort.ascending, nameOf));
    for (const v of sorted) if (nameOf(v) && !order.includes(nameOf(v))) order.push(nameOf(v));
  }
  const others = new Set<string>();
  for (const m of metrics.results.filter(ranked)) {
    for (const v of m.data.result ?? []) if (nameOf(v)) others.add(nameOf(v));
  }
  const ranks = new Map(order.map((name, i) => [name, i]));
  for (const name of [...others].sort()) if (!ranks.has(name)) ranks.set(name, ranks.size);

  const from = (sort.page - 1) * sort.limit;
  const to = Math.min(from + sort.limit, ranks.size);
  const results = metrics.results.map((m) => {
    if (!ranked(m)) return m;
    const slots = Array.from({ length: ranks.size }, emptyValue);
    for (const v of m.data.result ?? []) {
      const rank = ranks.get(nameOf(v));
      if (rank !== undefined) slots[rank] = v;
    }
    const page = slots.slice(from, to);
    return { ...m, data: { resultType: m.data.resultType, ...(page.length > 0 ? { result: page } : {}) } };
  });
  // Zero counts are left out, as KubeSphere's omitempty fields.
  const pages = Math.ceil(ranks.size / sort.limit);
  return {
    results,
    page: sort.page,
    ...(pages > 0 ? { total_page: pages, total_item: ranks.size } : {}),
  };
}

function compare(
  a: MetricValue,
  b: MetricValue,
  ascending: boolean,
  nameOf: (v: MetricValue) => string,
): number {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === undefined || y === undefined) {
    if (x !== y) return x === undefined ? 1 : -1;
    return nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
  }
  if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
  if (x === y || (Number.isNaN(x) && Number.isNaN(y))) {
    return nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
  }
  return ascending ? x - y : y - x;
}
