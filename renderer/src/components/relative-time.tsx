import { useEffect, useState } from 'react';
import { formatTime } from './ui';

/** The current time, re-read every `everyMs` so that "12 seconds ago" counts on between polls. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [['second', 60], ['minute', 60], ['hour', 24], ['day', 365]];

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

/** A relative time, with the exact one (in the browser's locale) as its tooltip and machine-readable value. */
export function TimeAgo({ iso, now, never = 'never' }: { iso: string | null | undefined; now: number; never?: string }) {
  if (!iso) return <span className="muted">{never}</span>;
  return <time dateTime={iso} title={formatTime(iso)}>{timeAgo(iso, now)}</time>;
}

/** A date as the UI shows it everywhere: relative ("3 days ago"), the exact time in the tooltip, kept current each 30 s. */
export function When({ iso, never = '—' }: { iso: string | null | undefined; never?: string }) {
  return <TimeAgo iso={iso} now={useNow(30_000)} never={never} />;
}
