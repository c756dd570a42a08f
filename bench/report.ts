/** The table every part fills: one row per measure, with its baseline, ratio, goal and verdict. */
import { appendFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './measure';

export interface Row {
  measure: string;
  /** Boxyard's figure, formatted (e.g. "612 MiB/s", "1,024 req/s, p99 12.3 ms"). */
  value: string;
  /** The baseline's figure, or "—" when the goal is absolute. */
  baseline: string;
  ratio: number | null;
  goal: string;
  /** null: informational or not measurable in this run. */
  pass: boolean | null;
  /** Anything odd seen while measuring (errors, non-2xx answers). */
  note?: string;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const mibps = (n: number) => `${fmt(n)} MiB/s`;
export const ms = (seconds: number) => `${fmt(seconds * 1000, seconds < 0.1 ? 1 : 0)} ms`;

/** Ratio row against a minimum ratio (and, optionally, an extra absolute check folded into `ok`). */
export function ratioRow(
  measure: string,
  value: string,
  baseline: string,
  v: number,
  b: number,
  min: number,
  extra?: { goal: string; ok: boolean },
): Row {
  const ratio = b > 0 ? v / b : 0;
  const ok = ratio >= min && (extra?.ok ?? true);
  return {
    measure,
    value,
    baseline,
    ratio,
    goal: `≥ ${min.toFixed(Number.isInteger(Math.round(min * 1000) / 100) ? 1 : 2)}${extra ? `, ${extra.goal}` : ''}`,
    pass: ok,
  };
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

/** Machine, software and load, so a result can be compared with another run. */
export function machine(): string {
  const dirty = git(['status', '--porcelain', '--', 'daemon']) ? ' (daemon/ has uncommitted changes)' : '';
  return [
    `${availableParallelism()} CPUs (nproc) — ${cpus()[0]?.model ?? 'unknown CPU'}`,
    `${fmt(totalmem() / 2 ** 30, 1)} GiB memory`,
    `node ${process.version}`,
    `commit ${git(['rev-parse', '--short', 'HEAD'])}${dirty}`,
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start`,
  ].join(', ');
}

export function table(rows: Row[]): string {
  const head = ['| measure | Boxyard | baseline | ratio | goal | result |', '|---|---|---|---|---|---|'];
  const verdict = (r: Row) => (r.pass === null ? '—' : r.pass ? 'PASS' : '**MISS**');
  const lines = rows.map(
    (r) =>
      `| ${r.measure} | ${r.value} | ${r.baseline} | ${r.ratio === null ? '—' : r.ratio.toFixed(2)} | ${r.goal} | ${verdict(r)} |`,
  );
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.measure}: ${r.note}`);
  return [...head, ...lines, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

/** Prints the table and appends it, with the machine and date, to bench/RESULTS.md (unless BENCH_RECORD=0). */
export function record(
  rows: Row[],
  opts: { startedAt: Date; machine: string; parts: string[]; settings: string; seconds: number },
): string {
  const missed = rows.filter((r) => r.pass === false).length;
  const text = [
    `### ${opts.startedAt.toISOString()} — ${opts.parts.join(', ')}`,
    '',
    `Machine: ${opts.machine}. Settings: ${opts.settings}. Run took ${fmt(opts.seconds)} s.`,
    '',
    table(rows),
    '',
    `${rows.length - missed - rows.filter((r) => r.pass === null).length} of ${rows.length} rows pass, ${missed} miss.`,
    '',
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  if (process.env.BENCH_RECORD === '0') return text;
  appendFileSync(join(ROOT, 'bench', 'RESULTS.md'), `\n${text}`);
  return text;
}
