export { formatBytes } from '../../../daemon/src/contract/bytes';

/** 3725 → "1 h 2 min"; 42 → "42 s". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** An optional number field: "" → undefined. */
export const numberOrUndefined = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s));

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 365],
];

/** A time this far ahead of the browser's clock still reads "now": the daemon's clock may run a little fast. */
const AHEAD_SECONDS = 5;

/**
 * "12 seconds ago", "3 minutes ago", "now", "in 2 hours", in the browser's language
 * (Intl.RelativeTimeFormat).
 */
export function timeAgo(iso: string, now: number): string {
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const ahead = Math.floor((new Date(iso).getTime() - now) / 1000);
  const sign = ahead > AHEAD_SECONDS ? 1 : -1;
  let value = sign > 0 ? ahead : Math.max(0, -ahead);
  for (const [unit, size] of STEPS) {
    if (value < size) return format.format(sign * value, unit);
    value = Math.floor(value / size);
  }
  return format.format(sign * value, 'year');
}
