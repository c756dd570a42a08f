/**
 * The load test, for a time: 50 clients at once mixing downloads, search, box pages,
 * uploads, logins, agent reports and a release/delete race (test/helpers/load-mix.ts, which
 * checks every answer and the end state), against `node bin/boxyard.mjs serve` on a fresh data
 * folder. The daemon's resident memory is sampled throughout. The first quarter is the warm-up
 * (from idle to working level); flat means the last quarter's level within 15% of the second's.
 * The peak goal allows for two password checks at once (scrypt, 16 MiB each, lib/crypto.ts).
 */
import { join } from 'node:path';
import { runLoadMix, OPS } from '../test/helpers/load-mix';
import { ADMIN, adminToken, sleep, startDaemon } from './measure';
import { rssMiB } from './proc-stats';
import { fmt, type Row } from './report';

const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] : 0);

export async function mixedLoad(work: string): Promise<Row[]> {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
  const clients = Number(process.env.BENCH_LOAD_CLIENTS ?? 50);
  const daemon = await startDaemon(join(work, 'load-data'));
  const samples: Array<{ at: number; rss: number }> = [];
  try {
    const token = await adminToken(daemon.url);
    process.stderr.write(`load: ${clients} clients for ${seconds} s\n`);
    const t0 = Date.now();
    const timer = setInterval(() => samples.push({ at: Date.now() - t0, rss: rssMiB(daemon.pid) }), 100);
    const r = await runLoadMix(daemon.url, {
      clients,
      until: t0 + seconds * 1000,
      fileBytes: 1024 * 1024,
      admin: { ...ADMIN, token },
    });
    const took = (Date.now() - t0) / 1000;
    await sleep(500);
    clearInterval(timer);
    const total = OPS.reduce((n, op) => n + r.ops[op].ok + r.ops[op].failed, 0);
    const failed = OPS.reduce((n, op) => n + r.ops[op].failed, 0);
    const perOp = OPS.map((op) => `${op} ${fmt(r.ops[op].ok)} (p99 ${fmt(p99(r.ops[op].ms))} ms)`).join(', ');
    const quarter = (q: number) => {
      const span = samples
        .filter((s) => s.at >= (q * seconds * 1000) / 4 && s.at < ((q + 1) * seconds * 1000) / 4)
        .map((s) => s.rss);
      return span.length ? span.reduce((a, b) => a + b, 0) / span.length : 0;
    };
    const [warm, last] = [quarter(1), quarter(3)];
    const peak = Math.max(...samples.map((s) => s.rss));
    const flat = last <= warm * 1.15 && peak < 200;
    return [
      {
        measure: `${clients} concurrent clients, mixed, ${fmt(seconds)} s`,
        value: `${fmt(total)} operations (${fmt(total / took)}/s), ${fmt(failed)} failed, ${r.problems.length} end-state problems, race ended ${r.race}`,
        baseline: '—',
        ratio: null,
        goal: 'no error, no lost update, one consistent state',
        pass: failed === 0 && r.problems.length === 0 && r.race !== 'inconsistent',
        note: [perOp, ...r.failures.slice(0, 3), ...r.problems.slice(0, 3)].join('; '),
      },
      {
        measure: 'daemon RSS under that load (second quarter / last quarter / peak)',
        value: `${fmt(warm)} / ${fmt(last)} / ${fmt(peak)} MiB`,
        baseline: '—',
        ratio: null,
        goal: 'flat (last ≤ second + 15%), peak < 200 MiB',
        pass: flat,
      },
    ];
  } finally {
    await daemon.stop();
  }
}
