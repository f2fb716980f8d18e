// Kubernetes resource quantities, as far as node annotations and the dev cluster's scheduler need them: parse cpu
// to millicores and memory to bytes, and print sums back in Kubernetes' canonical style ("250m", "2", "384Mi", "1500M").

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** The numeric value of a quantity in base units (cores, bytes); 0 for anything unparsable. */
export function parseQuantity(q: unknown): number {
  if (typeof q === 'number') return Number.isFinite(q) ? q : 0;
  if (typeof q !== 'string') return 0;
  const m = QUANTITY.exec(q.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** CPU in whole millicores (Kubernetes rounds up fractional millicores). */
export function cpuMillis(q: unknown): number {
  return Math.ceil(parseQuantity(q) * 1000 - 1e-9);
}

/** Memory (or any byte quantity) in whole bytes, rounded up. */
export function bytes(q: unknown): number {
  return Math.ceil(parseQuantity(q) - 1e-9);
}

export function formatCpu(millis: number): string {
  if (millis === 0) return '0';
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

export function formatBytes(n: number): string {
  if (n === 0) return '0';
  for (const [suffix, f] of Object.entries(BINARY).reverse()) {
    if (n % f === 0) return `${n / f}${suffix}`;
  }
  for (const suffix of ['E', 'P', 'T', 'G', 'M', 'k']) {
    const f = DECIMAL[suffix];
    if (n % f === 0) return `${n / f}${suffix}`;
  }
  return String(n);
}
