// CronJob schedules as Kubernetes reads them (robfig/cron's standard parser): five fields (minute, hour, day of
// month, month, day of week) with `*`, `?`, lists, ranges, steps and month/day names, or a macro (@yearly,
// @annually, @monthly, @weekly, @daily, @midnight, @hourly), evaluated in spec.timeZone (default UTC).

export interface Schedule {
  /** The first scheduled minute strictly after `afterMs`, or undefined when none comes within five years. */
  next(afterMs: number): number | undefined;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Field {
  min: number;
  max: number;
  names?: string[];
  /** Offset of names[0] (months count from 1). */
  nameBase?: number;
}

const FIELDS: Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { min: 0, max: 7, names: DAYS, nameBase: 0 },
];

function value(s: string, f: Field): number {
  const named = f.names?.indexOf(s.toLowerCase()) ?? -1;
  if (named >= 0) return named + (f.nameBase ?? 0);
  if (!/^\d+$/.test(s)) throw new Error(`failed to parse int from ${s}`);
  return Number(s);
}

function parseField(text: string, f: Field): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : value(stepText, { min: 1, max: f.max });
    if (step < 1) throw new Error(`step of range should be a positive number: ${part}`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [f.min, f.max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-');
      [lo, hi] = [value(a, f), value(b, f)];
    } else {
      lo = value(range, f);
      hi = stepText === undefined ? lo : f.max;
    }
    if (lo < f.min || hi > f.max) throw new Error(`end of range (${hi}) above maximum (${f.max}): ${part}`);
    if (lo > hi) throw new Error(`beginning of range (${lo}) beyond end of range (${hi}): ${part}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

interface WallClock {
  minute: number;
  hour: number;
  dom: number;
  month: number;
  dow: number;
}

const dowIndex: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function clockIn(timeZone: string | undefined): (ms: number) => WallClock {
  if (!timeZone || timeZone === 'UTC' || timeZone === 'Etc/UTC') {
    return (ms) => {
      const d = new Date(ms);
      return {
        minute: d.getUTCMinutes(),
        hour: d.getUTCHours(),
        dom: d.getUTCDate(),
        month: d.getUTCMonth() + 1,
        dow: d.getUTCDay(),
      };
    };
  }
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    minute: 'numeric',
    hour: 'numeric',
    day: 'numeric',
    month: 'numeric',
    weekday: 'short',
  });
  return (ms) => {
    const p = Object.fromEntries(fmt.formatToParts(ms).map((x) => [x.type, x.value]));
    return {
      minute: Number(p.minute),
      hour: Number(p.hour),
      dom: Number(p.day),
      month: Number(p.month),
      dow: dowIndex[p.weekday] ?? 0,
    };
  };
}

/** Parses a schedule; throws an Error whose message says what is wrong (the 422's cause). */
export function parseSchedule(text: string, timeZone?: string): Schedule {
  const spec = text.trim();
  if (/^(CRON_)?TZ=/.test(spec))
    throw new Error('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  if (timeZone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
    } catch {
      throw new Error(`unknown time zone ${timeZone}`);
    }
  }
  const expanded = spec.startsWith('@') ? MACROS[spec.toLowerCase()] : spec;
  if (!expanded) throw new Error(`unrecognized descriptor: ${spec}`);
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`);
  const [minutes, hours, doms, months, dows] = parts.map((p, i) => parseField(p, FIELDS[i]));
  if (dows.has(7)) dows.add(0);
  // Both day fields restricted: either may match (cron's rule); otherwise both must.
  const either = !/^[*?]/.test(parts[2]) && !/^[*?]/.test(parts[4]);
  const clock = clockIn(timeZone);
  return {
    next(afterMs) {
      let t = Math.floor(afterMs / 60_000) * 60_000 + 60_000;
      const limit = afterMs + 5 * 366 * 86_400_000;
      while (t <= limit) {
        const c = clock(t);
        const dayOk = either ? doms.has(c.dom) || dows.has(c.dow) : doms.has(c.dom) && dows.has(c.dow);
        if (!months.has(c.month) || !dayOk) t += ((23 - c.hour) * 60 + (60 - c.minute)) * 60_000;
        else if (!hours.has(c.hour)) t += (60 - c.minute) * 60_000;
        else if (!minutes.has(c.minute)) t += 60_000;
        else return t;
      }
      return undefined;
    },
  };
}
