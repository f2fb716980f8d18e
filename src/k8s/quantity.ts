// Kubernetes resource quantities, exact, as apimachinery's resource.Quantity parses, compares, adds and prints them:
// the value is kept in billionths of the unit (Kubernetes keeps nano precision, rounding finer values away from zero),
// with the format it was written in (binary `Mi`, decimal `M`, exponent `e6`) and, where Kubernetes keeps it, the text
// it was written as. Quota and limit ranges compare these; the scheduler and node annotations use the float view
// below (cpuMillis, bytes, quantityValue).

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** The value in billionths of the unit (nanocores, nanobytes). */
  readonly nano: bigint;
  readonly format: QuantityFormat;
  /** The input text when Kubernetes serialises the quantity as written (its parser's fast path found it canonical). */
  readonly text?: string;
}

/** A resource name -> quantity map (a ResourceList). */
export type Quantities = Map<string, Quantity>;

const NANO = 1_000_000_000n;
/** Parsing caps a binary quantity at 2^63-1 units, as Kubernetes does. */
const MAX_BINARY = ((1n << 63n) - 1n) * NANO;
const MAX_INT64 = (1n << 63n) - 1n;

const DECIMAL: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** apimachinery's scanner: sign, digits, `.`, digits, then suffix letters, an optional sign and digits. */
const SCAN = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;
/**
 * Longer strings are no quantity anyone writes (and would cost BigInt work); exponents past 999 likewise (Kubernetes
 * has no such bound).
 */
const MAX_LENGTH = 64;
const EXPONENT = /^[eE]([+-]?\d{1,3})$/;

/** Division rounding away from zero, as Kubernetes rounds to nano and to its int64 scales. */
const divAway = (n: bigint, d: bigint) => (n >= 0n ? (n + d - 1n) / d : -((-n + d - 1n) / d));

function interpret(suffix: string): { base: 2 | 10; exp: number; format: QuantityFormat } | undefined {
  if (suffix in DECIMAL) return { base: 10, exp: DECIMAL[suffix], format: 'DecimalSI' };
  if (suffix in BINARY) return { base: 2, exp: BINARY[suffix], format: 'BinarySI' };
  const e = EXPONENT.exec(suffix);
  return e ? { base: 10, exp: Number(e[1]), format: 'DecimalExponent' } : undefined;
}

/**
 * Whether Kubernetes keeps the input text as the quantity's serialised form: its int64 fast path applies and the
 * number looks canonical (a decimal scale that is a multiple of 3 without trailing "000" or a leading 0; a binary
 * mantissa not divisible by 8). So "1E3" stays "1E3" and "+1" stays "+1", while "1000m" becomes "1".
 */
function keepsText(num: string, denom: string, base: 2 | 10, exp: number): boolean {
  const shifted = num + denom;
  if (base === 2) {
    const precision = 15 - num.length - Math.trunc((exp * 3) / 10) - 1;
    if (denom !== '' || precision < 0) return false;
    const value = BigInt(num);
    return value << BigInt(exp) <= MAX_INT64 && (value & 7n) !== 0n;
  }
  const scale = exp - denom.length;
  if (18 - shifted.length < 0 || scale < -9) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

const cache = new Map<string, Quantity | undefined>();
const CACHE_SIZE = 4096;

/**
 * The quantity a string (or a JSON number) stands for, exactly as Kubernetes' ParseQuantity reads it (so also its
 * oddities: "." and "k" are 0, "1." is 1); undefined when Kubernetes refuses it. Whitespace is refused.
 */
export function parseQuantity(q: unknown): Quantity | undefined {
  const s = typeof q === 'number' && Number.isFinite(q) ? String(q) : q;
  if (typeof s !== 'string' || s.length > MAX_LENGTH) return undefined;
  // Few distinct quantities are ever written ("100m", "128Mi"): parse each once.
  if (cache.has(s)) return cache.get(s);
  const parsed = parse(s);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(s, parsed);
  return parsed;
}

function parse(s: string): Quantity | undefined {
  if (s === '') return undefined;
  if (s === '0') return { nano: 0n, format: 'DecimalSI', text: '0' };
  const m = SCAN.exec(s);
  if (!m) return undefined;
  const unit = interpret(m[4]);
  if (!unit) return undefined;
  const num = m[2].replace(/^0+/, '') || '0';
  const denom = m[3] ?? '';
  let n = BigInt(num + denom) * NANO;
  let d = 10n ** BigInt(denom.length);
  if (unit.base === 2) n <<= BigInt(unit.exp);
  else if (unit.exp >= 0) n *= 10n ** BigInt(unit.exp);
  else d *= 10n ** BigInt(-unit.exp);
  let nano = divAway(n, d);
  let format = unit.format;
  if (format === 'BinarySI') {
    if (nano > MAX_BINARY) nano = MAX_BINARY;
    // A binary quantity below one unit is decimal (it has no binary form).
    if (nano > 0n && nano < NANO) format = 'DecimalSI';
  }
  if (m[1] === '-') nano = -nano;
  const text = keepsText(num, denom, unit.base, unit.exp) ? s : undefined;
  return text === undefined ? { nano, format } : { nano, format, text };
}

/** Go's unicode.IsSpace characters, which strings.TrimSpace removes. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const AROUND_SPACE = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/**
 * A quantity's JSON string as Quantity.UnmarshalJSON reads it: without the spaces around it (strings.TrimSpace),
 * so `" 1"` in a request body is the quantity 1, while ParseQuantity itself refuses spaces.
 */
export const quantityJsonText = (s: string): string => s.replace(AROUND_SPACE, '');

/** Kubernetes' Quantity.String(): the kept text, else the canonical form in the quantity's format. */
export function formatQuantity(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  if (q.nano === 0n) return '0';
  const sign = q.nano < 0n ? '-' : '';
  const abs = q.nano < 0n ? -q.nano : q.nano;
  // Binary only for whole numbers of at least 1024 units: below that, or with a fraction, decimal.
  if (q.format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let units = abs / NANO;
    let i = 0;
    while (i < BINARY_SUFFIXES.length - 1 && units % 1024n === 0n) {
      units /= 1024n;
      i++;
    }
    return `${sign}${units}${BINARY_SUFFIXES[i]}`;
  }
  // The largest exponent that is a multiple of 3 and keeps the mantissa whole.
  let mantissa = abs;
  let exp = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp++;
  }
  while (exp % 3 !== 0) {
    mantissa *= 10n;
    exp--;
  }
  // DecimalSI has suffixes up to E (10^18); past it Kubernetes falls back to the exponent form.
  const si = q.format === 'DecimalExponent' ? undefined : DECIMAL_SUFFIX.get(exp);
  const suffix = si ?? (exp === 0 ? '' : `e${exp}`);
  return `${sign}${mantissa}${suffix}`;
}

/** A whole number of units. */
export const quantity = (units: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity => ({
  nano: BigInt(units) * NANO,
  format,
});

export const ZERO: Quantity = { nano: 0n, format: 'DecimalSI' };

/** Quantity.Add: the sum keeps the first operand's format (the second's when the first is zero), not its text. */
export const addQuantity = (a: Quantity | undefined, b: Quantity): Quantity =>
  a ? { nano: a.nano + b.nano, format: a.nano === 0n ? b.format : a.format } : b;

/** Quantity.Sub: a - b in a's format (b's when a is zero). */
export const subtractQuantity = (a: Quantity, b: Quantity): Quantity => ({
  nano: a.nano - b.nano,
  format: a.nano === 0n ? b.format : a.format,
});

/** -1, 0 or 1 as a is less than, equal to or greater than b (Quantity.Cmp). */
export const compareQuantity = (a: Quantity, b: Quantity): number =>
  a.nano < b.nano ? -1 : a.nano > b.nano ? 1 : 0;

/** Quantity.MilliValue(): thousandths of the unit, rounded away from zero. */
export const milliValue = (q: Quantity): bigint => divAway(q.nano, 1_000_000n);

/** Quantity.Value(): whole units, rounded away from zero. */
export const unitValue = (q: Quantity): bigint => divAway(q.nano, NANO);

/** Adds every entry of `b` into `into`. */
export function addQuantities(into: Quantities, b: Quantities): Quantities {
  for (const [k, v] of b) into.set(k, addQuantity(into.get(k), v));
  return into;
}

/** A ResourceList object (`{cpu: "1"}`) as quantities; entries that are not quantities are skipped. */
export function quantitiesOf(list: unknown): Quantities {
  const out: Quantities = new Map();
  if (!list || typeof list !== 'object' || Array.isArray(list)) return out;
  for (const [k, v] of Object.entries(list)) {
    const q = parseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

// The float view, for callers that need a number (the scheduler's fit, node usage annotations and fractions).

/** The value in base units (cores, bytes) as a float; 0 for anything that is not a quantity. */
export function quantityValue(q: unknown): number {
  const p = parseQuantity(q);
  return p ? Number(p.nano) / 1e9 : 0;
}

/** CPU in whole millicores, rounded up as MilliValue does; 0 for anything that is not a quantity. */
export function cpuMillis(q: unknown): number {
  const p = parseQuantity(q);
  return p ? Number(milliValue(p)) : 0;
}

/** Memory (or any byte quantity) in whole bytes, rounded up as Value does; 0 for anything that is not a quantity. */
export function bytes(q: unknown): number {
  const p = parseQuantity(q);
  return p ? Number(unitValue(p)) : 0;
}

/** Millicores printed as a DecimalSI quantity ("250m", "2"). */
export const formatCpu = (millis: number): string =>
  formatQuantity({ nano: BigInt(Math.round(millis)) * 1_000_000n, format: 'DecimalSI' });

/** Bytes printed in binary suffixes when a power of 1024 divides them ("384Mi"), else decimal ("1500M", "1536"). */
export function formatBytes(n: number): string {
  const units = BigInt(Math.round(n));
  return formatQuantity({ nano: units * NANO, format: units % 1024n === 0n ? 'BinarySI' : 'DecimalSI' });
}
