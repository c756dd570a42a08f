/**
 * A slowloris flood on a busy machine: `clients/flood.mjs` (a process of its own) keeps
 * BENCH_FLOOD_CONNECTIONS (4,000) connections open from 127.0.0.2 for BENCH_FLOOD_SECONDS (20),
 * half trickling a GET's headers, half trickling the body of a POST the daemon answers at once,
 * while one `node` busy loop per core keeps every core busy. Every second: how many sockets from
 * that address the daemon's process holds (`ss -p`, any state), and how long `/healthz` takes from
 * 127.0.0.1 with curl. Judged from 13 s on, once the headers deadline and the refusals' linger
 * have had their time.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { run, sleep, start, startDaemon } from './measure';
import { fmt, type Row } from './report';

const FLOODER = '127.0.0.2';
const SETTLE_SECONDS = 13;

/** Sockets from `address` that process `pid` holds on `port`, whatever their state. */
async function heldFrom(pid: number, port: string, address: string): Promise<number> {
  const out = await run('ss', ['-Htanp', `( sport = :${port} and dst ${address} )`]);
  return out.split('\n').filter((line) => line.includes(`pid=${pid},`)).length;
}

/** Seconds `/healthz` took through curl (a process of its own), or Infinity when it did not answer 200. */
async function healthSeconds(url: string): Promise<number> {
  const out = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '--max-time',
    '10',
    '-w',
    '%{http_code} %{time_total}',
    url,
  ]).catch(() => '0 0');
  const [code, seconds] = out.trim().split(' ');
  return code === '200' ? Number(seconds) : Number.POSITIVE_INFINITY;
}

export async function flood(work: string): Promise<Row[]> {
  const connections = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 4000);
  const seconds = Math.max(SETTLE_SECONDS + 2, Number(process.env.BENCH_FLOOD_SECONDS ?? 20));
  const daemon = await startDaemon(join(work, 'flood'));
  const burners = Array.from({ length: availableParallelism() }, () => start(process.execPath, ['-e', 'for (;;) {}']));
  const port = new URL(daemon.url).port;
  /** One a second, by the clock: `ss` over thousands of sockets and a slow `/healthz` take time of their own. */
  const samples: { at: number; held: number; health: number }[] = [];
  try {
    const flooder = start(process.execPath, [
      join('bench', 'clients', 'flood.mjs'),
      daemon.url,
      FLOODER,
      String(connections),
      String(seconds),
    ]);
    const exited = new Promise<void>((resolve) => flooder.child.once('exit', () => resolve()));
    const t0 = performance.now();
    const elapsed = () => (performance.now() - t0) / 1000;
    // Sampled while the flood lasts (the flooder stops at `seconds`), never after it.
    while (elapsed() < seconds - 1) {
      await sleep(1000 - ((performance.now() - t0) % 1000));
      const at = elapsed();
      const [h, t] = await Promise.all([heldFrom(daemon.pid, port, FLOODER), healthSeconds(`${daemon.url}/healthz`)]);
      if (at < seconds - 0.5) samples.push({ at, held: h, health: t });
    }
    await exited;
    const stats = flooder.output().trim().split('\n').at(-1) ?? '';
    const late = samples.filter((x) => x.at >= SETTLE_SECONDS).map((x) => x.held);
    const worstHeld = late.length > 0 ? Math.max(...late) : Number.POSITIVE_INFINITY;
    const worstHealth = Math.max(...samples.map((x) => x.health));
    const by = (f: (x: (typeof samples)[number]) => string) =>
      samples.map((x) => `${fmt(x.at, 1)} s: ${f(x)}`).join(', ');
    return [
      {
        measure: `slowloris: sockets from one address the daemon holds ${SETTLE_SECONDS} s into a flood of ${fmt(connections)} (every core busy)`,
        value: `${fmt(worstHeld)} (worst from ${SETTLE_SECONDS} s on)`,
        baseline: '—',
        ratio: null,
        goal: '≤ 1,000',
        pass: worstHeld <= 1000,
        note: `held: ${by((x) => fmt(x.held))}; flooder: ${stats}`,
      },
      {
        measure: 'slowloris: `/healthz` from another address during the flood (curl)',
        value: Number.isFinite(worstHealth) ? `${fmt(worstHealth * 1000)} ms (worst)` : 'no answer',
        baseline: '—',
        ratio: null,
        goal: '< 2,000 ms',
        pass: worstHealth < 2,
        note: `ms: ${by((x) => (Number.isFinite(x.health) ? fmt(x.health * 1000) : 'none'))}`,
      },
    ];
  } finally {
    for (const b of burners) await b.stop();
    await daemon.stop();
  }
}
