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

/**
 * "12 seconds ago", "3 minutes ago", "now", in the browser's language (Intl.RelativeTimeFormat).
 * A time slightly ahead of this machine's clock (the daemon's clock runs a little fast) reads "now".
 */
export function timeAgo(iso: string, now: number): string {
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  let value = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  for (const [unit, size] of STEPS) {
    if (value < size) return format.format(-value, unit);
    value = Math.floor(value / size);
  }
  return format.format(-value, 'year');
}

/** A relative time, with the exact one (in the browser's locale) as its tooltip and machine-readable value. */
export function TimeAgo({ iso, now }: { iso: string | null | undefined; now: number }) {
  if (!iso) return <span className="muted">never</span>;
  return <time dateTime={iso} title={formatTime(iso)}>{timeAgo(iso, now)}</time>;
}
