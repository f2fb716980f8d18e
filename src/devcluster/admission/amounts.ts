// Resource quantities as quota and limit ranges compare and print them: exact (BigInt thousandths of a unit, the
// precision Kubernetes compares cpu at), keeping the format a quantity was written in (binary `Mi` or decimal `M`),
// and printed the way Kubernetes' Quantity.String() canonicalises them ("1500m", "2", "1k", "128Mi", "1500").

export type QuantityFormat = 'BinarySI' | 'DecimalSI';

export interface Amount {
  /** Thousandths of the base unit (millicores, millibytes), rounded up as Kubernetes' MilliValue does. */
  milli: bigint;
  format: QuantityFormat;
}

/** A resource name -> amount map (a ResourceList). */
export type Amounts = Map<string, Amount>;

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
/** Decimal suffixes as powers of ten. */
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d{1,3}))?$/;

const MAX_LENGTH = 64;

const ceilDiv = (n: bigint, d: bigint) => (n >= 0n ? (n + d - 1n) / d : -(-n / d));

/** The amount a quantity string (or a JSON number) stands for; undefined when it is not a quantity. */
export function parseAmount(q: unknown): Amount | undefined {
  const s = typeof q === 'number' && Number.isFinite(q) ? String(q) : q;
  // Longer strings are no quantity anyone writes (and would cost BigInt work).
  if (typeof s !== 'string' || s.length > MAX_LENGTH) return undefined;
  const m = QUANTITY.exec(s);
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const frac = m[3] ?? '';
  let num = BigInt(`${m[2] || '0'}${frac}`) * 1000n;
  let den = 10n ** BigInt(frac.length);
  let format: QuantityFormat = 'DecimalSI';
  if (m[4] && m[4] in BINARY) {
    num *= BINARY[m[4]];
    format = 'BinarySI';
  } else {
    const exp = m[5] !== undefined ? Number(m[5]) : DECIMAL[m[4] ?? ''];
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  const milli = ceilDiv(num, den);
  return { milli: m[1] === '-' ? -milli : milli, format };
}

export const amount = (units: number, format: QuantityFormat = 'DecimalSI'): Amount => ({
  milli: BigInt(units) * 1000n,
  format,
});

export const ZERO: Amount = { milli: 0n, format: 'DecimalSI' };

const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/** Whole `units` with the largest suffix of `base` (1024 or 1000) that keeps the number whole. */
function scaled(units: bigint, base: bigint, suffixes: string[]): string {
  let i = 0;
  while (i < suffixes.length - 1 && units % base === 0n) {
    units /= base;
    i++;
  }
  return `${units}${suffixes[i]}`;
}

/** Kubernetes' Quantity.String(): binary quantities of at least 1Ki in binary suffixes, the rest decimal. */
export function formatAmount(a: Amount): string {
  const sign = a.milli < 0n ? '-' : '';
  const m = a.milli < 0n ? -a.milli : a.milli;
  if (m === 0n) return '0';
  if (m % 1000n !== 0n) return `${sign}${m}m`;
  if (a.format === 'BinarySI' && m >= 1024_000n) return sign + scaled(m / 1000n, 1024n, BINARY_SUFFIXES);
  return sign + scaled(m / 1000n, 1000n, DECIMAL_SUFFIXES);
}

/** Sum keeping the first operand's format, as Quantity.Add does. */
export const addAmount = (a: Amount | undefined, b: Amount): Amount =>
  a ? { milli: a.milli + b.milli, format: a.milli === 0n ? b.format : a.format } : b;

/** Adds every entry of `b` into `into`. */
export function addAll(into: Amounts, b: Amounts): Amounts {
  for (const [k, v] of b) into.set(k, addAmount(into.get(k), v));
  return into;
}

/** A ResourceList object (`{cpu: "1"}`) as amounts; entries that are not quantities are skipped. */
export function amountsOf(list: unknown): Amounts {
  const out: Amounts = new Map();
  if (!list || typeof list !== 'object' || Array.isArray(list)) return out;
  for (const [k, v] of Object.entries(list)) {
    const a = parseAmount(v);
    if (a) out.set(k, a);
  }
  return out;
}

/** `a=1,b=2` sorted by name, as the quota admission plugin prints resource lists. */
export function printAmounts(list: Amounts, keys: Iterable<string>): string {
  return [...keys]
    .sort()
    .map((k) => `${k}=${formatAmount(list.get(k) ?? ZERO)}`)
    .join(',');
}
