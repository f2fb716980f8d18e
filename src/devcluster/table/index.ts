// meta.k8s.io Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for `kubectl get`:
// the built-in kinds get kubectl's usual columns, custom resources their CRD's additionalPrinterColumns.

import { since } from './format.ts';
import { evalJsonPath, parseJsonPath } from './jsonpath.ts';
import {
  AGE_COLUMN,
  type ColumnDefinition,
  col,
  DEFAULT_PRINTER,
  NAME_COLUMN,
  PRINTERS,
  type PrintedRow,
  type Printer,
} from './printers.ts';

export { formatLabelSelector, formatLabels, humanDuration } from './format.ts';
export type { ColumnDefinition } from './printers.ts';

type Obj = Record<string, unknown>;

/** A CRD version's `additionalPrinterColumns` entry (`JSONPath` is the v1beta1 spelling). */
export interface AdditionalPrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
  JSONPath?: string;
}

export interface TableKind {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  /** A custom resource's CRD version info; its printerColumns are used when opts.crdColumns is absent. */
  crd?: { printerColumns?: unknown[] };
}

export interface TableOptions {
  /** What each row's `object` carries: PartialObjectMetadata (default), the full object, or nothing. */
  includeObject?: 'None' | 'Metadata' | 'Object' | string;
  /** `metadata` of the Table (resourceVersion, continue, remainingItemCount of the list). */
  listMeta?: Obj;
  crdColumns?: AdditionalPrinterColumn[];
  /** Table API version asked for; v1 unless the client only accepts v1beta1. */
  tableVersion?: 'v1' | 'v1beta1';
  /** Clock for AGE cells (ms since epoch); defaults to Date.now(). */
  now?: number;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const BUILTIN_GROUPS = new Set(['', 'apps', 'batch', 'autoscaling', 'policy', 'extensions']);
const isBuiltinGroup = (g: string) => BUILTIN_GROUPS.has(g) || g === 'k8s.io' || g.endsWith('.k8s.io');

/** apiextensions' cellForJSONValue: typed cells, `null` (printed `<none>`) when the value does not fit. */
function crdCell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, now);
    default:
      // type string (and unknown types): the JSONPath printer's rendering.
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

function normalizeColumns(raw: unknown[]): AdditionalPrinterColumn[] {
  const out: AdditionalPrinterColumn[] = [];
  for (const c of raw) {
    if (!isObj(c) || typeof c.name !== 'string' || typeof c.type !== 'string') continue;
    out.push(c as unknown as AdditionalPrinterColumn);
  }
  return out;
}

/** Printer for a custom resource: Name, the CRD's columns, and Age unless a date column is given. */
function crdPrinter(columns: AdditionalPrinterColumn[]): Printer {
  const specs = columns
    .map((c) => ({ c, path: parseJsonPath(c.jsonPath ?? c.JSONPath ?? '') }))
    .filter((s) => s.path !== undefined);
  const defs: ColumnDefinition[] = [NAME_COLUMN];
  for (const { c } of specs) {
    defs.push(
      col(
        c.name,
        c.type,
        c.description ?? '',
        typeof c.priority === 'number' ? c.priority : 0,
        c.format ?? '',
      ),
    );
  }
  const hasDate = specs.some((s) => s.c.type === 'date');
  if (!hasDate) defs.push({ ...AGE_COLUMN, type: 'date' });
  return {
    columns: defs,
    row: (o, now) => {
      const meta = isObj(o.metadata) ? o.metadata : {};
      const cells: unknown[] = [typeof meta.name === 'string' ? meta.name : ''];
      for (const { c, path } of specs) cells.push(crdCell(c.type, evalJsonPath(o, path ?? []), now));
      if (!hasDate) cells.push(since(meta.creationTimestamp, now));
      return { cells };
    },
  };
}

function printerFor(kind: TableKind, opts: TableOptions): Printer {
  const crdColumns =
    opts.crdColumns ?? (kind.crd ? normalizeColumns(kind.crd.printerColumns ?? []) : undefined);
  if (crdColumns) return crdPrinter(normalizeColumns(crdColumns));
  const printer = PRINTERS[`${kind.group}/${kind.kind}`];
  if (printer) return printer;
  return isBuiltinGroup(kind.group) ? DEFAULT_PRINTER : crdPrinter([]);
}

function rowObject(o: Obj, includeObject: string | undefined, tableVersion: string): Obj | undefined {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return o;
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: isObj(o.metadata) ? o.metadata : {},
  };
}

/**
 * Builds a meta.k8s.io Table for `objects` of one kind. A single GET passes one object; a list passes its
 * items and `listMeta`. Cells include the `-o wide` columns (priority 1), which kubectl hides by default.
 */
export function toTable(kind: TableKind, objects: Obj[], opts: TableOptions = {}): Obj {
  const tableVersion = opts.tableVersion ?? 'v1';
  const now = opts.now ?? Date.now();
  const printer = printerFor(kind, opts);
  const rows = objects.map((o) => {
    const printed: PrintedRow = printer.row(o, now);
    const row: Obj = { cells: printed.cells };
    if (printed.conditions) row.conditions = printed.conditions;
    const object = rowObject(o, opts.includeObject, tableVersion);
    if (object) row.object = object;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: opts.listMeta ?? {},
    columnDefinitions: printer.columns,
    rows,
  };
}
