/**
 * What Prometheus metrics cost the API (the goal: within 5%): two daemons on copies of the large
 * database, one as it ships (metrics on, and scraped every 15 s as Prometheus would) and one with
 * BOXYARD_METRICS=0, measured with wrk in alternating slices on the catalog, the box and the
 * agents list. Judged by each daemon's CPU time per request (/proc, over its slices), summed over
 * the three endpoints, in one row (each endpoint's figures in its note): requests a second moved
 * with this machine's drift between slices as much as metrics cost, while a core's time per
 * request is what metrics add to.
 */
import { join } from 'node:path';
import { alternating, wrk } from './api';
import { probe, run, startDaemon, type Proc } from './measure';
import { fmt, ratioRow, type Row } from './report';
import type { Seed } from './seed';

export async function metricsCost(work: string, s: Seed): Promise<Row[]> {
  if (s.database) throw new Error('metrics cost is measured on the embedded database');
  const duration = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  const [on, off] = [join(work, 'metrics-on'), join(work, 'metrics-off')];
  for (const dir of [on, off]) await run('cp', ['-a', s.dataDir, dir]);
  const procs: Proc[] = [];
  let scraper: NodeJS.Timeout | undefined;
  try {
    const withMetrics = await startDaemon(on);
    procs.push(withMetrics);
    const without = await startDaemon(off, { env: { BOXYARD_METRICS: '0' } });
    procs.push(without);
    if ((await probe(`${without.url}/metrics`)) !== 404) throw new Error('BOXYARD_METRICS=0 still serves /metrics');
    scraper = setInterval(() => void probe(`${withMetrics.url}/metrics`), 15_000);
    const endpoints = [
      { measure: 'catalog `GET /ORG/BOX`', path: `/${s.org}/${s.box}`, accept: 'application/json' },
      { measure: '`GET /api/v1/box/ORG/BOX`', path: `/api/v1/box/${s.org}/${s.box}`, accept: 'application/json' },
      {
        measure: 'agents list, page of 100',
        path: `/api/v2/agent-pools/${s.poolId}/agents?page%5Bsize%5D=100`,
        accept: 'application/vnd.api+json',
      },
    ];
    const perRow: string[] = [];
    const errors: string[] = [];
    // CPU seconds per request summed over the three endpoints, with metrics and without.
    const sum = { on: 0, off: 0 };
    for (const e of endpoints) {
      process.stderr.write(`metrics: ${e.path}\n`);
      const headers = [`Authorization: Bearer ${s.token}`, `Accept: ${e.accept}`];
      for (const d of [withMetrics, without]) await wrk(d.url + e.path, headers, 1);
      const [a, b] = await alternating(duration, [withMetrics.url + e.path, without.url + e.path], headers, [
        withMetrics.pid,
        without.pid,
      ]);
      const on = a.cpuPerRequest ?? Infinity;
      const off = b.cpuPerRequest ?? Infinity;
      sum.on += on;
      sum.off += off;
      perRow.push(
        `${e.measure} ${fmt(on * 1e6)} / ${fmt(off * 1e6)} µs (${(off / on).toFixed(2)}; ${fmt(a.rps)} / ${fmt(b.rps)} req/s)`,
      );
      errors.push(...[a.errors, b.errors].filter(Boolean));
    }
    // Requests per CPU second, with metrics over without, of the three together: 0.95 is 5% more CPU.
    const row = ratioRow(
      "metrics' cost: CPU per request of the catalog, the box and the agents list summed, without / with metrics",
      `${fmt(sum.on * 1e6)} µs`,
      `BOXYARD_METRICS=0 ${fmt(sum.off * 1e6)} µs`,
      1 / sum.on,
      1 / sum.off,
      0.95,
    );
    row.note = [`with / without metrics, per endpoint: ${perRow.join('; ')}`, ...errors].join('; ');
    if (errors.length) row.pass = false;
    return [row];
  } finally {
    clearInterval(scraper);
    for (const p of procs.reverse()) await p.stop();
  }
}
