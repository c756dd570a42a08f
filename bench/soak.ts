/**
 * A long run that must stay flat: `node bin/boxyard.mjs serve` on the large database (seed.ts)
 * under moderate load of every kind at once for BENCH_SOAK_SECONDS (1,800), every client in a
 * process of its own: catalog and search reads at a steady pace (clients/soak-reads.mjs), uploads
 * and downloads of real box files checked by sha256 (clients/soak-boxes.mjs), 1,000 agents
 * reporting every 10 s (clients/agents-report.mjs), a mirror scheduled every minute (the shortest
 * schedule its API takes) from an upstream that gains a version a minute (soak-upstream.ts), and
 * `boxyard backup` of the live data folder halfway, restored and checked with `boxyard check`.
 * Every 10 s: RSS, V8 heap, descriptors, the WAL's size (soak-samples.ts). The first sixth is the
 * warm-up; growth compares the highest sample of the run's last twelfth with that of the twelfth
 * before the warm-up ends.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, BIN, ROOT, run, since, now, sleep, startDaemon, type Proc } from './measure';
import { fmt, type Row } from './report';
import { seed } from './seed';
import { growth, metricValue, plot, sample, type Sample } from './soak-samples';
import { SoakUpstream, UPSTREAM_BOX } from './soak-upstream';
import type { JobJson } from '../daemon/src/contract/wire/mirror';

const EVERY = 10;
const UPLOAD_BOX = 'soak-uploads';

interface ClientStats {
  failed: number;
  errors: Record<string, number>;
  problems?: string[];
  [k: string]: unknown;
}

/** A client script of clients/ in its own process; its JSON summary. */
async function client(script: string, args: string[], seconds: number): Promise<ClientStats> {
  const out = await run(process.execPath, [join(ROOT, 'bench', 'clients', script), ...args], {
    timeoutMs: (seconds + 300) * 1000,
  });
  return JSON.parse(out) as ClientStats;
}

/** `boxyard backup` of the live folder, `restore` of it into a new one and `check` there; problems found. */
async function backupAndCheck(dataDir: string, dir: string): Promise<{ seconds: number; problems: string[] }> {
  const [dest, restored] = [join(dir, 'backup'), join(dir, 'restored')];
  const t0 = now();
  const problems: string[] = [];
  try {
    await run(process.execPath, [BIN, 'backup', dest, '--data', dataDir], { timeoutMs: 600_000 });
    await run(process.execPath, [BIN, 'restore', dest, '--data', restored], { timeoutMs: 600_000 });
    await run(process.execPath, [BIN, 'check', '--data', restored], { timeoutMs: 600_000 });
  } catch (err) {
    problems.push(`backup: ${String(err).split('\n').slice(0, 3).join(' ')}`);
  } finally {
    rmSync(dest, { recursive: true, force: true });
    rmSync(restored, { recursive: true, force: true });
  }
  return { seconds: since(t0), problems };
}

/** One last run of the mirror by its API, then every version the upstream lists must be mirrored with its sha256. */
async function mirrorEnd(url: string, token: string, mirrorId: string, upstream: SoakUpstream): Promise<string[]> {
  let { job } = await api<{ job: JobJson }>(url, 'POST', `/api/boxyard/mirrors/${mirrorId}/run`, { token });
  for (let i = 0; i < 600 && (job.state === 'queued' || job.state === 'running'); i++) {
    await sleep(500);
    job = (await api<{ job: JobJson }>(url, 'GET', `/api/boxyard/mirror-jobs/${job.id}`, { token })).job;
  }
  if (job.state !== 'done') return [`the last mirror run ended ${job.state}: ${job.message}`];
  const catalog = await api<{ versions: Array<{ version: string; providers: Array<{ checksum: string }> }> }>(
    url,
    'GET',
    `/${UPSTREAM_BOX}`,
    { token },
  );
  const shown = new Map(catalog.versions.map((v) => [v.version, v.providers[0]?.checksum]));
  return upstream.versions
    .filter((v) => shown.get(v.version) !== v.sha256)
    .map((v) => `mirrored ${v.version}: ${shown.get(v.version) ?? 'missing'}`);
}

export async function soak(work: string): Promise<Row[]> {
  const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 1800);
  const warm = seconds / 6;
  const dir = join(work, 'soak');
  mkdirSync(dir, { recursive: true });
  process.stderr.write('soak: seeding the large database\n');
  const s = await seed(join(dir, 'data'));
  const idsFile = join(dir, 'agent-ids.json');
  writeFileSync(idsFile, JSON.stringify(s.agentIds));
  const dbFile = join(s.dataDir, 'boxyard.db');
  const procs: Array<Pick<Proc, 'stop'>> = [];
  const samples: Sample[] = [];
  const timers: NodeJS.Timeout[] = [];
  try {
    const upstream = await SoakUpstream.start(join(dir, 'upstream'), Math.ceil(seconds / 60) + 5, 2);
    procs.push(upstream);
    const daemon = await startDaemon(s.dataDir);
    procs.push(daemon);
    const { url } = daemon;
    const token = s.token;
    const [org] = s.orgs;
    await api(url, 'POST', '/api/v1/boxes', { token, body: { box: { username: org, name: UPLOAD_BOX } } });
    upstream.addVersion();
    const { mirror } = await api<{ mirror: { id: string } }>(url, 'POST', '/api/boxyard/mirrors', {
      token,
      body: { mirror: { upstream: { url: upstream.catalogUrl }, source: UPSTREAM_BOX, interval_minutes: 1 } },
    });

    process.stderr.write(`soak: ${fmt(seconds)} s of reads, transfers, 1,000 agents, a mirror every minute\n`);
    const t0 = Date.now();
    const at = () => (Date.now() - t0) / 1000;
    const clients = Promise.all([
      client('soak-reads.mjs', [url, token, s.org, s.box, '4', String(seconds)], seconds),
      client('soak-boxes.mjs', [url, token, org, UPLOAD_BOX, '4', '10', '2', String(seconds)], seconds),
      client('agents-report.mjs', [url, s.agentToken, idsFile, String(EVERY), String(seconds)], seconds),
    ]);
    const sampleFailures: string[] = [];
    const take = () =>
      sample(at(), daemon.pid, url, dbFile).then(
        (x) => {
          // A line a minute, to follow a long run.
          if (samples.push(x) % 6 === 1) process.stderr.write(`soak: ${progress(x)}\n`);
        },
        (err: unknown) => sampleFailures.push(String(err)),
      );
    await take();
    timers.push(setInterval(take, EVERY * 1000));
    timers.push(setInterval(() => upstream.addVersion(), 60_000));
    await sleep((seconds / 2) * 1000);
    process.stderr.write('soak: boxyard backup of the live data folder, restore and check\n');
    const backup = await backupAndCheck(s.dataDir, dir);
    const [reads, boxes, agents] = await clients;
    for (const t of timers) clearInterval(t);
    await take();
    const mirrorProblems = await mirrorEnd(url, token, mirror.id, upstream);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const jobs = (state: string) => metricValue(metrics, `boxyard_mirror_jobs\\{state="${state}"\\}`) || 0;
    const failedJobs = jobs('failed') + jobs('cancelled');
    return rows({
      seconds,
      warm,
      samples,
      clients: { reads, boxes, agents },
      backup,
      mirror: { done: jobs('done'), failed: failedJobs, versions: upstream.versions.length, problems: mirrorProblems },
      sampleFailures,
    });
  } finally {
    for (const t of timers) clearInterval(t);
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const progress = (x: Sample) =>
  `${fmt(x.at / 60, 1)} min: RSS ${fmt(x.rssMiB)} MiB, heap ${fmt(x.heapMiB, 1)} MiB, ${fmt(x.fds)} fds, WAL ${fmt(x.walMiB, 1)} MiB`;

interface Outcome {
  seconds: number;
  warm: number;
  samples: Sample[];
  clients: { reads: ClientStats; boxes: ClientStats; agents: ClientStats };
  backup: { seconds: number; problems: string[] };
  mirror: { done: number; failed: number; versions: number; problems: string[] };
  sampleFailures: string[];
}

/** The plot next to RESULTS.md when the run is recorded (else in the temporary folder); its name for the note. */
function writePlot(o: Outcome): string {
  const day = new Date().toISOString().slice(0, 10);
  const recorded = process.env.BENCH_RECORD !== '0';
  const file = join(recorded ? join(ROOT, 'bench') : tmpdir(), `soak-${day}.svg`);
  writeFileSync(file, plot(o.samples, `boxyard serve under the soak's load, ${fmt(o.seconds / 60)} min`, o.warm));
  return recorded ? `[plot](soak-${day}.svg)` : file;
}

function rows(o: Outcome): Row[] {
  const { samples, warm, seconds } = o;
  const rss = growth(samples, (x) => x.rssMiB, warm, seconds);
  const heap = growth(samples, (x) => x.heapMiB, warm, seconds);
  const fds = growth(samples, (x) => x.fds, warm, seconds);
  const last = samples[samples.length - 1];
  const wal = samples.map((x) => x.walMiB);
  const walAfter = Math.max(...samples.filter((x) => x.at >= warm).map((x) => x.walMiB));
  const { reads, boxes, agents } = o.clients;
  const failed = reads.failed + boxes.failed + agents.failed + o.mirror.failed;
  const problems = [
    ...(boxes.problems ?? []),
    ...o.backup.problems,
    ...o.mirror.problems,
    ...o.sampleFailures.slice(0, 2),
    ...[reads, boxes, agents].flatMap((c) => Object.entries(c.errors).map(([k, n]) => `${k}: ${n}`)).slice(0, 5),
    Number(agents.stop) > 0 ? `${agents.stop} agent answers said stop` : '',
  ].filter(Boolean);
  const pct = (r: number) => `${r >= 1 ? '+' : ''}${fmt((r - 1) * 100, 1)}%`;
  const span = `${fmt(warm / 2 / 60, 1)} min`;
  const plotRef = writePlot(o);
  return [
    {
      measure: `soak ${fmt(seconds / 60)} min: daemon RSS, highest of the last ${span} vs the ${span} before the warm-up's end (${fmt(warm / 60, 1)} min)`,
      value: `${fmt(rss.before)} → ${fmt(rss.after)} MiB (${pct(rss.ratio)})`,
      baseline: '—',
      ratio: null,
      goal: '< +10%',
      pass: rss.ratio < 1.1,
      note: `V8 heap used (the daemon's /metrics) ${fmt(heap.before, 1)} → ${fmt(heap.after, 1)} MiB (${pct(heap.ratio)}); RSS at the end ${fmt(last.rssMiB)} MiB, peak ${fmt(Math.max(...samples.map((x) => x.rssMiB)))} MiB; ${samples.length} samples every ${EVERY} s; ${plotRef}`,
    },
    {
      measure: `soak: open descriptors of the daemon (same windows)`,
      value: `${fmt(fds.before)} → ${fmt(fds.after)} (${pct(fds.ratio)})`,
      baseline: '—',
      ratio: null,
      goal: '< +10%',
      pass: fds.ratio < 1.1,
      note: `1,000 agents' keep-alive connections among them; the database's files held open: ${fmt(Math.min(...samples.map((x) => x.dbFds)))}–${fmt(Math.max(...samples.map((x) => x.dbFds)))} descriptors (SQLite's one connection; /metrics shows a pool on PostgreSQL only)`,
    },
    {
      measure: 'soak: failed requests and wrong checksums',
      value: `${fmt(failed)} failed, ${fmt(Number(boxes.bad_checksums))} wrong checksums, ${problems.length} problems`,
      baseline: '—',
      ratio: null,
      goal: '0, every checksum right',
      pass: failed === 0 && Number(boxes.bad_checksums) === 0 && problems.length === 0,
      note: [
        `reads ${fmt(Number(reads.ok))} (p99 ${fmt(Number(reads.p99_ms), 1)} ms)`,
        `uploads ${fmt(Number(boxes.uploads))} and downloads ${fmt(Number(boxes.downloads))} of 4 MiB files (${fmt(Number(boxes.mib_up))} MiB up, ${fmt(Number(boxes.mib_down))} MiB down, every one checked by sha256)`,
        `agent reports ${fmt(Number(agents.ok))} (p99 ${fmt(Number(agents.p99_ms), 1)} ms)`,
        `mirror runs done ${fmt(o.mirror.done)}, failed or cancelled ${fmt(o.mirror.failed)}, ${o.mirror.versions} upstream versions all mirrored with their sha256${o.mirror.problems.length ? ' — NOT' : ''}`,
        `backup + restore + check halfway took ${fmt(o.backup.seconds, 1)} s${o.backup.problems.length ? ' and FAILED' : ', valid'}`,
        ...problems.slice(0, 6),
      ].join('; '),
    },
    {
      measure: 'soak: SQLite WAL (DATA/boxyard.db-wal)',
      value: `${fmt(walAfter, 1)} MiB at most after the warm-up, ${fmt(last.walMiB, 1)} MiB at the end`,
      baseline: '—',
      ratio: null,
      goal: 'bounded: ≤ 16 MiB after the warm-up',
      pass: walAfter <= 16,
      note: `WAL MiB by minute: ${samples
        .filter((_, i) => i % 6 === 0)
        .map((x) => fmt(x.walMiB, 1))
        .join(', ')}; highest ${fmt(Math.max(...wal), 1)}`,
    },
  ];
}
