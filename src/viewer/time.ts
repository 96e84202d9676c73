/**
 * Readable times and the time slider's scale (docs/viewer.md#times). Pure: no DOM, and "now" is an argument, so it is
 * unit-tested (test/unit/viewerTime.test.ts).
 */

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["week", 7 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
  ["second", 1000],
];

/** "3 hours ago", "in 2 days", "now": the largest unit that fits, rounded down. */
export function relativeTime(at: number, now: number, locale = "en"): string {
  const elapsed = now - at;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  if (Math.abs(elapsed) < 10_000) return format.format(0, "second");
  for (const [unit, size] of UNITS) {
    const count = Math.trunc(elapsed / size);
    if (count !== 0) return format.format(-count, unit);
  }
  return format.format(0, "second");
}

/** The absolute date and time in the reader's time zone (or the one given): "2 Dec 2026, 21:17". */
export function absoluteTime(at: number, locale = "en-GB", timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(timeZone !== undefined ? { timeZone } : {}),
  }).format(at);
}

/** An ISO time as people read it: "2 Dec 2026, 18:17 (3 hours ago)". Not a time: returned as it is. */
export function readableTime(iso: string, now: number, options: { locale?: string; timeZone?: string } = {}): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${absoluteTime(at, options.locale, options.timeZone)} (${relativeTime(at, now)})`;
}

/** The time slider's range, in milliseconds: from the history's start to now, with a step that gives about 1,000 stops. */
export function sliderRange(historySince: string, now: number): { min: number; max: number; step: number } | undefined {
  const min = Date.parse(historySince);
  if (Number.isNaN(min) || min >= now) return undefined;
  return { min, max: now, step: Math.max(1000, Math.round((now - min) / 1000)) };
}

/** The asOf a slider position asks for: none at its right end (the graph now), else the position's time. */
export function sliderAsOf(value: number, range: { max: number; step: number }): string | undefined {
  return value >= range.max - range.step / 2 ? undefined : new Date(value).toISOString();
}
