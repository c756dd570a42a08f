/**
 * Staleness between two daemons on one PostgreSQL database: BENCH_STALENESS_WRITES (200) changes
 * of a box's short description through one daemon's API, each followed by polling the other's
 * `GET /api/v1/box/ORG/BOX` until it shows the change. The time from the write's answer to the
 * first read that shows it, p99 and median. The other daemon serves the box from its read cache
 * between writes, so each figure is how long it takes to hear of a write (PostgreSQL's NOTIFY).
 */
import { fmt, type Row } from './report';
import type { Seed } from './seed';

export async function staleness(writer: string, reader: string, s: Seed): Promise<Row> {
  const writes = Number(process.env.BENCH_STALENESS_WRITES ?? 200);
  const path = `/api/v1/box/${s.org}/${s.box}`;
  const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
  const read = async () => {
    const r = await fetch(`${reader}${path}`, { headers });
    if (r.status !== 200) throw new Error(`GET ${path} on the second daemon: ${r.status}`);
    return ((await r.json()) as { short_description: string }).short_description;
  };
  const lags: number[] = [];
  for (let i = 0; i < writes; i++) {
    const text = `staleness ${i}`;
    await read();
    const put = await fetch(`${writer}${path}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ box: { short_description: text } }),
    });
    if (put.status !== 200) throw new Error(`PUT ${path} on the first daemon: ${put.status}`);
    const written = performance.now();
    for (let tries = 0; (await read()) !== text; tries++) {
      if (tries > 10_000) throw new Error(`the second daemon never showed write ${i}`);
    }
    lags.push(performance.now() - written);
  }
  lags.sort((x, y) => x - y);
  const p99 = lags[Math.ceil(lags.length * 0.99) - 1];
  const median = lags[Math.floor(lags.length / 2)];
  return {
    measure: `staleness between two daemons on PostgreSQL: a write through one seen by the other (${writes} writes)`,
    value: `p99 ${fmt(p99, 1)} ms`,
    baseline: '—',
    ratio: null,
    goal: 'p99 < 100 ms',
    pass: p99 < 100,
    note: `median ${fmt(median, 1)} ms, worst ${fmt(lags[lags.length - 1], 1)} ms`,
  };
}
