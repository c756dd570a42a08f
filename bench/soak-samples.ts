/**
 * What the soak part samples every 10 s, how it judges growth, and its plot. A sample reads /proc
 * (VmRSS of the daemon's process tree, its open descriptors and which of them are the database's
 * files), the daemon's own `/metrics` (prom-client's `nodejs_heap_size_used_bytes`) and the size
 * of the SQLite WAL beside the database.
 */
import { statSync } from 'node:fs';
import { descriptors, rssMiB } from './proc-stats';
import { fmt } from './report';

export interface Sample {
  /** Seconds since the load began. */
  at: number;
  rssMiB: number;
  heapMiB: number;
  fds: number;
  /** Descriptors open on the database file or its -wal/-shm: SQLite's one connection (no pool on SQLite). */
  dbFds: number;
  walMiB: number;
}

const MiB = 2 ** 20;

/** A value of the Prometheus text `text` (the unlabelled series `name`), or NaN. */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

function fileMiB(file: string): number {
  try {
    return statSync(file).size / MiB;
  } catch {
    return 0;
  }
}

export async function sample(at: number, pid: number, url: string, dbFile: string): Promise<Sample> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const fds = descriptors(pid);
  return {
    at,
    rssMiB: rssMiB(pid),
    heapMiB: metricValue(metrics, 'nodejs_heap_size_used_bytes') / MiB,
    fds: fds.length,
    dbFds: fds.filter((f) => f.startsWith(dbFile)).length,
    walMiB: fileMiB(`${dbFile}-wal`),
  };
}

/**
 * Growth of one figure after the warm-up: the highest sample in the last `span` seconds against the
 * highest in the `span` seconds up to the end of the warm-up (maxima of windows of equal length, so
 * a garbage collector's sawtooth counts the same on both sides).
 */
export function growth(samples: Sample[], pick: (s: Sample) => number, warm: number, end: number) {
  const span = warm / 2;
  const top = (from: number, to: number) =>
    Math.max(...samples.filter((s) => s.at >= from && s.at <= to).map(pick), Number.NEGATIVE_INFINITY);
  const before = top(warm - span, warm);
  const after = top(end - span, end);
  return { before, after, ratio: after / before };
}

/** A hand-written SVG of RSS (MiB, left axis) and open descriptors (right axis) over the run's minutes. */
export function plot(samples: Sample[], title: string, warm: number): string {
  const [w, h, left, right, top, bottom] = [760, 300, 56, 56, 30, 40];
  const end = Math.max(...samples.map((s) => s.at), 1);
  const ceil = (v: number) => {
    const step = 10 ** Math.floor(Math.log10(Math.max(v, 1)));
    return Math.ceil((v * 1.1) / step) * step;
  };
  const rssTop = ceil(Math.max(...samples.map((s) => s.rssMiB)));
  const fdTop = ceil(Math.max(...samples.map((s) => s.fds)));
  const x = (at: number) => left + ((w - left - right) * at) / end;
  const y = (v: number, max: number) => h - bottom - ((h - top - bottom) * v) / max;
  const line = (pick: (s: Sample) => number, max: number) =>
    samples.map((s) => `${x(s.at).toFixed(1)},${y(pick(s), max).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const text = (tx: number, ty: number, s: string, anchor = 'middle', fill = '#333') =>
    `<text x="${tx.toFixed(1)}" y="${ty.toFixed(1)}" text-anchor="${anchor}" fill="${fill}">${s}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="11">`,
    `<rect width="${w}" height="${h}" fill="#fff"/>`,
    text(w / 2, 16, title),
    ...ticks.map((t) => {
      const ty = y(t, 1);
      return [
        `<line x1="${left}" x2="${w - right}" y1="${ty}" y2="${ty}" stroke="#ddd"/>`,
        text(left - 4, ty + 4, fmt(t * rssTop), 'end', '#1f5fbf'),
        text(w - right + 4, ty + 4, fmt(t * fdTop), 'start', '#c0392b'),
        text(x(t * end), h - bottom + 14, fmt((t * end) / 60, 1)),
      ].join('');
    }),
    `<line x1="${x(warm)}" x2="${x(warm)}" y1="${top}" y2="${h - bottom}" stroke="#999" stroke-dasharray="4 3"/>`,
    text(x(warm) + 4, top + 10, 'end of warm-up', 'start', '#666'),
    text(w / 2, h - 8, 'minutes since the load began'),
    text(14, top - 8, 'RSS MiB', 'start', '#1f5fbf'),
    text(w - 14, top - 8, 'open fds', 'end', '#c0392b'),
    `<polyline fill="none" stroke="#1f5fbf" stroke-width="1.5" points="${line((s) => s.rssMiB, rssTop)}"/>`,
    `<polyline fill="none" stroke="#c0392b" stroke-width="1.5" points="${line((s) => s.fds, fdTop)}"/>`,
    '</svg>',
    '',
  ].join('\n');
}
