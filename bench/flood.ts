/**
 * A slowloris flood on a busy machine: `clients/flood.mjs` (a process of its own) keeps
 * BENCH_FLOOD_CONNECTIONS (4,000) connections open from 127.0.0.2 for BENCH_FLOOD_SECONDS (20),
 * half trickling a GET's headers, half trickling the body of a POST the daemon answers at once,
 * while one `node` busy loop per core keeps every core busy. Every second: how many sockets from
 * that address the daemon's process holds (`ss -p`, any state), how many connections wait in its
 * accept queue, and how long `/healthz` takes from 127.0.0.1 with curl. Held sockets are judged
 * from 13 s on, once the headers deadline and the refusals' linger have had their time.
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

/**
 * Connections the kernel completed and the daemon's process has yet to accept (`ss -l`'s Recv-Q):
 * a new connection waits behind all of them, and Node accepts one per turn of its event loop.
 */
async function acceptQueue(port: string): Promise<number> {
  const out = await run('ss', ['-Hltn', `( sport = :${port} )`]);
  return Number(out.trim().split(/\s+/)[1] ?? Number.NaN);
}

/** How long `/healthz` took through curl (a process of its own), in seconds. */
interface Health {
  /** Until TCP's handshake was done: the kernel's part (a SYN dropped by a full accept queue waits 1 s). */
  connect: number;
  /** Until the whole answer: total is Infinity when it did not answer 200. */
  total: number;
}

async function health(url: string): Promise<Health> {
  const out = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '--max-time',
    '10',
    '-w',
    '%{http_code} %{time_connect} %{time_total}',
    url,
  ]).catch(() => '0 0 0');
  const [code, connect, total] = out.trim().split(' ');
  return { connect: Number(connect), total: code === '200' ? Number(total) : Number.POSITIVE_INFINITY };
}

export async function flood(work: string): Promise<Row[]> {
  const connections = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 4000);
  const seconds = Math.max(SETTLE_SECONDS + 2, Number(process.env.BENCH_FLOOD_SECONDS ?? 20));
  const daemon = await startDaemon(join(work, 'flood'));
  const burners = Array.from({ length: availableParallelism() }, () => start(process.execPath, ['-e', 'for (;;) {}']));
  const port = new URL(daemon.url).port;
  /**
   * One a second, by the clock: `ss` over thousands of sockets takes time of its own, and a slow
   * `/healthz` is not waited for before the next second's sample (its curl runs on).
   */
  const samples: { at: number; held: number; queued: number; health: Promise<Health> }[] = [];
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
      const [queued, probe] = [acceptQueue(port), health(`${daemon.url}/healthz`)];
      const held = await heldFrom(daemon.pid, port, FLOODER);
      if (at < seconds - 0.5) samples.push({ at, held, queued: await queued, health: probe });
    }
    await exited;
    const healths = await Promise.all(samples.map((x) => x.health));
    const stats = flooder.output().trim().split('\n').at(-1) ?? '';
    const late = samples.filter((x) => x.at >= SETTLE_SECONDS).map((x) => x.held);
    const worstHeld = late.length > 0 ? Math.max(...late) : Number.POSITIVE_INFINITY;
    const worstHealth = Math.max(...healths.map((h) => h.total));
    const by = (f: (x: (typeof samples)[number], h: Health) => string) =>
      samples.map((x, i) => `${fmt(x.at, 1)} s: ${f(x, healths[i])}`).join(', ');
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
        note:
          'ms in all (of which TCP connect) [connections queued to be accepted when curl started]: ' +
          by(
            (x, h) =>
              `${Number.isFinite(h.total) ? `${fmt(h.total * 1000)} (${fmt(h.connect * 1000)})` : 'none'} [${fmt(x.queued)}]`,
          ),
      },
    ];
  } finally {
    for (const b of burners) await b.stop();
    await daemon.stop();
  }
}
