/**
 * The API at scale, measured with wrk (`-t1 -c10 --latency`, its own process) on the seeded
 * database, against Koa answering a fixed JSON of the same size in its own process
 * (baselines/koa-fixed.mjs; each endpoint's real answer is handed to it). Every request carries
 * the administrator's token, as vagrant and go-tfe send one once logged in.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run, startBaseline, startDaemon, type Proc } from './measure';
import { cpuSeconds, rssSampler } from './proc-stats';
import { fmt, ms, ratioRow, type Row } from './report';
import { seedEnv, type Seed } from './seed';

interface Endpoint {
  measure: string;
  path: string;
  jsonapi?: boolean;
  min: number;
  /** What a right answer holds; a wrong one would make any speed meaningless. */
  check(body: Answer): string | null;
}

/** What the checks read of an answer (parsed JSON): each checks that its part is there. */
interface Answer {
  boxes?: Array<{ name: string }>;
  versions?: unknown[];
  data?: unknown[];
}

interface Wrk {
  rps: number;
  /** wrk's p99; over slices (`alternating`), the worst slice's. */
  p99: number;
  /** The p99 of all the requests: over slices (`alternating`), from their histograms merged. */
  allP99: number;
  requests: number;
  /** wrk's latency histogram: microseconds → requests (clients/wrk-latency.lua). */
  latency: Map<number, number>;
  errors: string;
  /** CPU seconds of the server per request, when its pid was given. */
  cpuPerRequest?: number;
}

function endpoints(s: Seed): Endpoint[] {
  const boxes = (n: number) => (b: Answer) =>
    b.boxes?.length === n ? null : `expected ${n} boxes, got ${b.boxes?.length}`;
  const hasVersions = (b: Answer) =>
    b.versions?.length === s.versions ? null : `expected ${s.versions} versions, got ${b.versions?.length}`;
  return [
    { measure: 'catalog `GET /ORG/BOX`', path: `/${s.org}/${s.box}`, min: 0.5, check: hasVersions },
    { measure: '`GET /api/v1/box/ORG/BOX`', path: `/api/v1/box/${s.org}/${s.box}`, min: 0.5, check: hasVersions },
    {
      measure: '`GET /api/v1/search?q=box-77`',
      path: '/api/v1/search?q=box-77',
      min: 0.3,
      check: (b) => boxes(10)(b) ?? (b.boxes?.every((x) => x.name.includes('box-77')) ? null : 'a hit does not match'),
    },
    {
      measure: '`GET /api/v1/search?sort=downloads`',
      path: '/api/v1/search?sort=downloads',
      min: 0.3,
      check: boxes(10),
    },
    { measure: '`GET /api/v1/search?sort=created`', path: '/api/v1/search?sort=created', min: 0.3, check: boxes(10) },
    { measure: '`GET /api/v1/search?sort=updated`', path: '/api/v1/search?sort=updated', min: 0.3, check: boxes(10) },
    {
      measure: 'agent pools list (1 pool)',
      path: `/api/v2/organizations/${s.orgs[0]}/agent-pools`,
      jsonapi: true,
      min: 0.5,
      check: (b) => (b.data?.length === 1 ? null : `expected 1 pool, got ${b.data?.length}`),
    },
    {
      measure: `agents list, page of 100 (of ${fmt(s.agentIds.length)})`,
      path: `/api/v2/agent-pools/${s.poolId}/agents?page%5Bsize%5D=100`,
      jsonapi: true,
      min: 0.5,
      check: (b) => (b.data?.length === 100 ? null : `expected 100 agents, got ${b.data?.length}`),
    },
  ];
}

const UNIT: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, m: 60 };
const seconds = (v: string, u: string) => Number(v) * UNIT[u];

/** The p99 of a latency histogram in seconds, by wrk's own rule (the value at rank round(0.99 × count + 0.5)). */
export function p99Of(latency: Map<number, number>): number {
  const values = [...latency.keys()].sort((a, b) => a - b);
  const count = values.reduce((t, v) => t + (latency.get(v) ?? 0), 0);
  const rank = Math.round(0.99 * count + 0.5);
  let seen = 0;
  for (const v of values) {
    seen += latency.get(v) ?? 0;
    if (seen >= rank) return v / 1e6;
  }
  return Number.NaN;
}

/** Parses wrk's summary (with --latency) and the histogram clients/wrk-latency.lua prints after it. */
export function parseWrk(out: string): Wrk {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s*99%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (!rps || !p99 || !requests) throw new Error(`unexpected wrk output:\n${out}`);
  const errors = [/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[0], /Socket errors: .*/.exec(out)?.[0]]
    .filter(Boolean)
    .join('; ');
  const latency = new Map<number, number>();
  for (const m of out.matchAll(/^latency-us (\d+) (\d+)$/gm)) latency.set(Number(m[1]), Number(m[2]));
  const own = seconds(p99[1], p99[2]);
  return { rps: Number(rps[1]), p99: own, allP99: own, requests: Number(requests[1]), latency, errors };
}

const LATENCY_SCRIPT = join(ROOT, 'bench', 'clients', 'wrk-latency.lua');

export function wrk(url: string, headers: string[], duration: number, connections = 10): Promise<Wrk> {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${duration}s`,
    '--latency',
    '-s',
    LATENCY_SCRIPT,
    '--timeout',
    '10s',
    ...headers.flatMap((h) => ['-H', h]),
    url,
  ];
  return run('wrk', args, { timeoutMs: (duration + 30) * 1000 }).then(parseWrk);
}

/**
 * wrk against each url in turn (A B, B A, …), in BENCH_WRK_SLICES (5) slices of the duration each: this machine's
 * speed drifts by up to 2x over tens of seconds (other tenants), and one long run of each side
 * after the other put that drift into the ratio. Per url: requests per second over all its
 * slices; the worst slice's p99, and the p99 of all its requests from the slices' latency histograms
 * merged (wrk's printed percentiles cannot be merged; the worst slice's is only an upper bound of
 * theirs); with `pids` (each url's server), its CPU seconds per request over its slices, from /proc.
 */
export async function alternating(
  duration: number,
  urls: readonly string[],
  headers: string[],
  pids?: readonly number[],
): Promise<Wrk[]> {
  const slices = Math.max(1, Number(process.env.BENCH_WRK_SLICES ?? 5));
  const runs: Wrk[][] = urls.map(() => []);
  const cpu = urls.map(() => 0);
  for (let n = 0; n < slices; n++) {
    // In turn A B, then B A: a drift within a pair of slices favours neither side.
    const order = [...urls.keys()];
    if (n % 2) order.reverse();
    for (const i of order) {
      const url = urls[i];
      const c0 = pids ? cpuSeconds(pids[i]) : 0;
      runs[i].push(await wrk(url, headers, Math.max(1, Math.round(duration / slices))));
      if (pids) cpu[i] += cpuSeconds(pids[i]) - c0;
    }
  }
  return runs.map((r, i) => {
    const seconds = r.reduce((t, w) => t + w.requests / w.rps, 0);
    const requests = r.reduce((t, w) => t + w.requests, 0);
    const latency = new Map<number, number>();
    for (const w of r) for (const [v, n] of w.latency) latency.set(v, (latency.get(v) ?? 0) + n);
    return {
      rps: requests / seconds,
      requests,
      p99: Math.max(...r.map((w) => w.p99)),
      allP99: p99Of(latency),
      latency,
      errors: r
        .map((w) => w.errors)
        .filter(Boolean)
        .join('; '),
      ...(pids ? { cpuPerRequest: cpu[i] / requests } : {}),
    };
  });
}

export async function apiAtScale(work: string, s: Seed): Promise<Row[]> {
  const duration = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  const list = endpoints(s);
  const bodiesDir = join(work, 'api-bodies');
  mkdirSync(bodiesDir, { recursive: true });
  const procs: Proc[] = [];
  try {
    const daemon = await startDaemon(s.dataDir, { env: seedEnv(s) });
    procs.push(daemon);
    const headersOf = (e: Endpoint) => [
      `Authorization: Bearer ${s.token}`,
      `Accept: ${e.jsonapi ? 'application/vnd.api+json' : 'application/json'}`,
    ];
    const sizes: number[] = [];
    const problems: Array<string | null> = [];
    for (const [i, e] of list.entries()) {
      const res = await fetch(daemon.url + e.path, {
        headers: Object.fromEntries(headersOf(e).map((h) => h.split(': ') as [string, string])),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${e.path}: ${res.status} ${text.slice(0, 300)}`);
      problems.push(e.check(JSON.parse(text)));
      sizes.push(Buffer.byteLength(text));
      writeFileSync(join(bodiesDir, `${i}.json`), text);
    }
    const koa = await startBaseline(
      'koa-fixed.mjs',
      list.map((_, i) => join(bodiesDir, `${i}.json`)),
    );
    procs.push(koa);

    const rows: Row[] = [];
    const rss = rssSampler(daemon.pid);
    for (const [i, e] of list.entries()) {
      process.stderr.write(`api: ${e.path}\n`);
      const headers = headersOf(e);
      // One second of warm-up each (JIT, SQLite page cache), then the measured runs.
      await wrk(daemon.url + e.path, headers, 1);
      await wrk(`${koa.url}/${i}`, headers, 1);
      const [d, k] = await alternating(duration, [daemon.url + e.path, `${koa.url}/${i}`], headers);
      // The p99 judged (bench/README.md): on PostgreSQL that of all the row's requests, else the worst slice's.
      const p99 = (w: Wrk) => (s.database ? w.allP99 : w.p99);
      const row = ratioRow(
        `${e.measure}${s.database ? ' on PostgreSQL' : ''} (${fmt(sizes[i] / 1024, 1)} KiB)`,
        `${fmt(d.rps)} req/s, p99 ${ms(p99(d))}`,
        `Koa fixed JSON ${fmt(k.rps)} req/s, p99 ${ms(p99(k))}`,
        // The goals on PostgreSQL (bench/README.md): 0.4 (search 0.25) of the same ceiling.
        d.rps,
        k.rps,
        s.database ? (e.min < 0.5 ? 0.25 : 0.4) : e.min,
        { goal: `p99${s.database ? ' of all requests' : ''} < 20 ms`, ok: p99(d) < 0.02 },
      );
      const notes = [
        problems[i] && `wrong answer: ${problems[i]}`,
        d.errors && `daemon: ${d.errors}`,
        k.errors && `baseline: ${k.errors}`,
      ].filter(Boolean);
      if (s.database) row.note = `the worst slice's p99: Boxyard ${ms(d.p99)}, Koa ${ms(k.p99)}`;
      if (notes.length) {
        row.note = [row.note, ...notes].filter(Boolean).join('; ');
        row.pass = false;
      }
      rows.push(row);
    }
    const peak = rss.stop();
    rows.push({
      measure: `RSS peak over these runs${s.database ? ' on PostgreSQL' : ''} (every process of \`boxyard serve\`)`,
      value: `${fmt(peak)} MiB`,
      baseline: '—',
      ratio: null,
      goal: '< 150 MiB',
      pass: peak < 150,
    });
    return rows;
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}
