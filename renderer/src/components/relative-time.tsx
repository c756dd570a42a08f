import { useEffect, useState } from 'react';
import { formatTime } from './ui';
import { timeAgo } from './format';

/** The current time, re-read every `everyMs` so that "12 seconds ago" counts on between polls. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** A relative time, with the exact one (in the browser's locale) as its tooltip and machine-readable value. */
export function TimeAgo({
  iso,
  now,
  never = 'never',
}: {
  iso: string | null | undefined;
  now: number;
  never?: string;
}) {
  if (!iso) return <span className="muted">{never}</span>;
  return (
    <time dateTime={iso} title={formatTime(iso)}>
      {timeAgo(iso, now)}
    </time>
  );
}

/**
 * A date as the UI shows it everywhere: relative ("3 days ago"), the exact time in the tooltip, kept current each 30 s.
 */
export function When({ iso, never = '—' }: { iso: string | null | undefined; never?: string }) {
  return <TimeAgo iso={iso} now={useNow(30_000)} never={never} />;
}
