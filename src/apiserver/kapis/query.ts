// KubeSphere v1alpha3 list query parameters (pkg/apiserver/query): page, limit, sortBy, ascending, labelSelector,
// and every other parameter as a field filter. KubeSphere silently treats bad values as defaults; kapiserver answers
// 400 with a Status naming the parameter instead.
import { type LabelSelector, parseLabelSelector } from '../../k8s/selectors.ts';
import { badRequest } from '../../k8s/status.ts';

/** Largest accepted `limit`. Big enough for any console page or export, small enough to bound one response. */
export const MAX_LIMIT = 10_000;

export const RESERVED_PARAMETERS = new Set(['page', 'limit', 'sortBy', 'ascending', 'labelSelector']);

export interface ListQuery {
  /** 1-based. */
  page: number;
  /** undefined = no paging (all matches). */
  limit: number | undefined;
  sortBy: string;
  ascending: boolean;
  labelSelector: LabelSelector | undefined;
  /** Field filters in request order; a repeated parameter keeps its last value (as KubeSphere). */
  filters: Map<string, string>;
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function positiveInt(name: string, raw: string, max: number): number {
  if (!/^\d{1,9}$/.test(raw)) {
    throw badRequest(
      `invalid value for query parameter ${name}: "${clip(raw)}" (expected an integer from 1 to ${max})`,
    );
  }
  const n = Number(raw);
  if (n < 1 || n > max) {
    throw badRequest(
      `invalid value for query parameter ${name}: ${n} (expected an integer from 1 to ${max})`,
    );
  }
  return n;
}

function clip(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}...` : s;
}

/**
 * Parses a raw query string. `sortFields` are the fields the resource can sort by (the first is the default).
 * Throws a 400 StatusError for a page below 1, a limit outside 1..MAX_LIMIT (or -1: all), an unknown sortBy, a non-boolean
 * ascending, or an unparsable labelSelector.
 */
export function parseListQuery(search: string, sortFields: readonly string[]): ListQuery {
  const params = new URLSearchParams(search);
  const first = (name: string) => params.get(name);
  const q: ListQuery = {
    page: 1,
    limit: undefined,
    sortBy: sortFields[0] ?? 'creationTimestamp',
    ascending: false,
    labelSelector: undefined,
    filters: new Map(),
  };
  const page = first('page');
  if (page !== null && page !== '') q.page = positiveInt('page', page, 1_000_000_000);
  const limit = first('limit');
  // -1 is KubeSphere's "no paging", which its console sends for pickers (every global role, every workspace).
  if (limit !== null && limit !== '' && limit !== '-1') q.limit = positiveInt('limit', limit, MAX_LIMIT);
  const sortBy = first('sortBy');
  if (sortBy !== null && sortBy !== '') {
    if (!sortFields.includes(sortBy)) {
      throw badRequest(
        `invalid value for query parameter sortBy: "${clip(sortBy)}" (one of: ${sortFields.join(', ')})`,
      );
    }
    q.sortBy = sortBy;
  }
  const ascending = first('ascending');
  if (ascending !== null && ascending !== '') {
    if (TRUE.has(ascending)) q.ascending = true;
    else if (FALSE.has(ascending)) q.ascending = false;
    else
      throw badRequest(`invalid value for query parameter ascending: "${clip(ascending)}" (true or false)`);
  }
  const selector = first('labelSelector');
  if (selector !== null && selector.trim() !== '') {
    q.labelSelector = parseLabelSelector(selector);
  }
  for (const [key, value] of params) {
    if (!RESERVED_PARAMETERS.has(key)) q.filters.set(key, value);
  }
  return q;
}
