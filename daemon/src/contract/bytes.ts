/**
 * Sizes as people read them, in binary units (1 KiB = 1024 bytes): the one rule for the web UI,
 * the CLI's progress and summaries, and the daemon's messages. Pure, shared with renderer/.
 */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `n` in the largest unit it fills at least once: the value and the unit's index. */
function scaled(n: number): [number, number] {
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return [v, i];
}

/** 1536 → "1.5 KiB", 5 MiB → "5.0 MiB", 12 → "12 B"; "—" for a size not known. For tables and progress. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const [v, i] = scaled(n);
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${UNITS[i]}`;
}

/** 1.5 GiB, 800 MiB, 12 KiB, 100 bytes: a size in a sentence (an error message), no more digits than it needs. */
export function humanBytes(n: number): string {
  const [v, i] = scaled(n);
  return i === 0 ? `${n} bytes` : `${v >= 10 ? Math.round(v) : v.toFixed(1)} ${UNITS[i]}`;
}
