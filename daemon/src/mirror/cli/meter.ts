import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import { formatBytes } from '../../contract/bytes';

/** Where a transfer stands; rate and ETA are worked out here when the caller has none. */
export interface Progress {
  bytesDone: number;
  /** null: not known (yet). */
  bytesTotal: number | null;
  filesDone: number;
  filesTotal: number;
  rate?: number | null;
  eta?: number | null;
  /** What is happening now: a file name, the job's message. */
  label?: string | null;
}

export interface Meter {
  update(p: Progress): void;
  /** A line that stays (a file done, a note), printed above the bar on a terminal. */
  log(line: string): void;
  /** Ends the bar (leaving its last state) or prints the last plain line. */
  stop(): void;
}

/** The CLI's sizes: the contract's, as the web UI shows them. */
export { formatBytes };

export function formatSeconds(s: number): string {
  const t = Math.round(s);
  if (t < 60) return `${t}s`;
  if (t < 3600) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`;
  return `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m`;
}

/** The numbers a progress line or bar shows, as text. */
function describe(p: Progress, elapsedSeconds: number) {
  const rate = p.rate ?? (elapsedSeconds > 0.5 && p.bytesDone > 0 ? p.bytesDone / elapsedSeconds : null);
  const left = p.bytesTotal === null ? null : Math.max(0, p.bytesTotal - p.bytesDone);
  const eta = p.eta ?? (rate && left !== null ? left / rate : null);
  return {
    done: formatBytes(p.bytesDone),
    size: p.bytesTotal === null ? '?' : formatBytes(p.bytesTotal),
    percent: p.bytesTotal ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : p.bytesTotal === 0 ? 100 : null,
    files: `${p.filesDone}/${p.filesTotal} files`,
    speed: rate === null ? '-/s' : `${formatBytes(rate)}/s`,
    eta: eta === null ? '-' : formatSeconds(eta),
    label: p.label ?? '',
  };
}

/** A terminal: one cli-progress bar with bytes, files, rate and ETA; notes go above it. */
function barMeter(out: NodeJS.WriteStream, now: () => number): Meter {
  const started = now();
  const bars = new MultiBar(
    {
      stream: out,
      // Short enough for an 80-column terminal, where cli-progress cuts the line.
      format: '{bar} {percentage}% {done}/{size} {files} {speed} ETA {eta_text} {label}',
      hideCursor: true,
      barsize: 20,
      fps: 5,
    },
    Presets.shades_classic,
  );
  let bar: SingleBar | null = null;
  return {
    update(p) {
      const t = describe(p, (now() - started) / 1000);
      const payload = { done: t.done, size: t.size, files: t.files, speed: t.speed, eta_text: t.eta, label: t.label };
      const total = p.bytesTotal ?? Math.max(p.bytesDone, 1);
      if (!bar) bar = bars.create(total, p.bytesDone, payload);
      bar.setTotal(total);
      bar.update(p.bytesDone, payload);
    },
    log: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}

/** Not a terminal (a log, CI): a plain line when a file finishes and every few seconds. */
function lineMeter(out: NodeJS.WritableStream, now: () => number, everyMs: number): Meter {
  const started = now();
  let lastAt = -Infinity;
  let lastFiles = -1;
  let last: Progress | null = null;
  let printed: Progress | null = null;
  const print = (p: Progress) => {
    printed = p;
    const t = describe(p, (now() - started) / 1000);
    const percent = t.percent === null ? '' : ` (${t.percent}%)`;
    out.write(
      `progress: ${t.done} of ${t.size}${percent}, ${t.files}, ${t.speed}, ETA ${t.eta}${t.label ? ` - ${t.label}` : ''}\n`,
    );
    lastAt = now();
    lastFiles = p.filesDone;
  };
  return {
    update(p) {
      last = p;
      if (p.filesDone !== lastFiles || now() - lastAt >= everyMs) print(p);
    },
    log: (line) => void out.write(`${line}\n`),
    stop() {
      if (last && last !== printed) print(last);
    },
  };
}

/** A bar when `out` is a terminal, plain lines otherwise. */
export function createMeter(out: NodeJS.WriteStream, now: () => number = Date.now, everyMs = 5000): Meter {
  return out.isTTY ? barMeter(out, now) : lineMeter(out, now, everyMs);
}
