/**
 * The `agents` (scale) row: 10,000 agents (clients/agents-report.mjs, a process of its own, each agent
 * on a keep-alive connection of its own) reporting every 10 s, 1,000 reports a second, for
 * BENCH_SCALE_AGENT_SECONDS (120), on a database of their own: the data folder's SQLite, or
 * PostgreSQL in the scale-out part. Agents register through the agent protocol first (seed.ts).
 * Recorded: the reports' p99 as the simulator sees it, every agent's status sampled from the
 * daemon's /metrics every 2 s (an `unknown` or `errored` one while all report is a false one), and
 * the daemon's CPU and peak RSS over the run. Then the same reports against Koa answering the daemon's
 * answer as a fixed JSON (baselines/koa-fixed.mjs), measured the same way: the daemon's CPU over the
 * steady part of its run (from STEADY_FROM_S to the end) against Koa's over the same part of its own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import SqliteDatabase from 'better-sqlite3';
import { now, ROOT, run, since, sleep, startBaseline, startDaemon } from './measure';
import { cpuSeconds, rssSampler } from './proc-stats';
import { fmt, type Row } from './report';
import { seed, seedEnv, type Seed } from './seed';

const INTERVAL = 10;
const AGENTS = 10_000;

/** Every agent of the pool alive as of now: registration took a while, and the daemon was stopped since. */
export async function revive(s: Seed): Promise<void> {
  const at = new Date().toISOString();
  if (s.database) {
    const client = new pg.Client({ connectionString: s.database });
    await client.connect();
    try {
      await client.query("UPDATE agents SET status = 'idle', last_ping_at = $1 WHERE pool_id = $2", [at, s.poolId]);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new SqliteDatabase(join(s.dataDir, 'boxyard.db'));
  try {
    db.prepare("UPDATE agents SET status = 'idle', last_ping_at = ? WHERE pool_id = ?").run(at, s.poolId);
  } finally {
    db.close();
  }
}

/** Agents by status, from the daemon's /metrics. */
async function statuses(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Object.fromEntries(
    [...text.matchAll(/^boxyard_agents\{status="(\w+)"\} (\d+)/gm)].map((m) => [m[1], Number(m[2])]),
  );
}

interface ReportStats {
  sent: number;
  ok: number;
  failed: number;
  stop: number;
  errors: Record<string, number>;
  p99_ms: number;
  steady_p99_ms: number;
  p99_by_interval_ms: number[];
  first_interval_p99_by_second_ms: number[];
}

/** The steady part of a run: from this many seconds after its start (every agent connected, V8 warmed) to its end. */
const STEADY_FROM_S = 3 * INTERVAL;

interface Run {
  stats: ReportStats;
  /** The server's CPU, % of one core, over the whole run and over its steady part. */
  cpuPct: number;
  steadyPct: number;
}

/**
 * The agents' client against `url` for `duration` s, `watch` asked every 2 s meanwhile (its /metrics, which the Koa
 * baseline answers like any path): the server's CPU over the run and over its steady part.
 */
async function reportsTo(
  url: string,
  pid: number,
  token: string,
  idsFile: string,
  duration: number,
  watch: (seconds: number) => Promise<void>,
): Promise<Run> {
  const c0 = cpuSeconds(pid);
  const t0 = now();
  const client = run(
    process.execPath,
    [join(ROOT, 'bench', 'clients', 'agents-report.mjs'), url, token, idsFile, String(INTERVAL), String(duration)],
    { timeoutMs: (duration + 120) * 1000 },
  );
  let done = false;
  void client.finally(() => {
    done = true;
  });
  let steady: { c: number; t: bigint } | undefined;
  while (!done) {
    await sleep(2_000);
    if (!steady && since(t0) >= STEADY_FROM_S) steady = { c: cpuSeconds(pid), t: now() };
    await watch(since(t0));
  }
  const stats = JSON.parse(await client) as ReportStats;
  const c1 = cpuSeconds(pid);
  const cpuPct = ((c1 - c0) / since(t0)) * 100;
  const steadyPct = steady ? ((c1 - steady.c) / since(steady.t)) * 100 : cpuPct;
  return { stats, cpuPct, steadyPct };
}

export async function agentsAtScale(work: string, database?: string): Promise<Row[]> {
  const duration = Number(process.env.BENCH_SCALE_AGENT_SECONDS ?? 120);
  const backend = database ? 'PostgreSQL' : 'SQLite';
  process.stderr.write(`agents: registering ${fmt(AGENTS)} agents through the protocol (${backend})\n`);
  const s = await seed(join(work, database ? 'pg-agents-10k' : 'agents-10k'), {
    boxes: 0,
    agents: AGENTS,
    orgs: 1,
    database,
  });
  const idsFile = join(work, `agent-ids-10k-${backend}.json`);
  writeFileSync(idsFile, JSON.stringify(s.agentIds));
  await revive(s);
  const daemon = await startDaemon(s.dataDir, { env: seedEnv(s) });
  const falseUnknown = { most: 0, at: -1 };
  let measured: Run;
  let peak: number;
  let after: Record<string, number>;
  try {
    process.stderr.write(`agents: ${fmt(AGENTS)} agents every ${INTERVAL} s for ${duration} s\n`);
    const rss = rssSampler(daemon.pid);
    measured = await reportsTo(daemon.url, daemon.pid, s.agentToken, idsFile, duration, async (at) => {
      const st = await statuses(daemon.url);
      const bad = (st.unknown ?? 0) + (st.errored ?? 0);
      if (bad > falseUnknown.most) Object.assign(falseUnknown, { most: bad, at: Math.round(at) });
    });
    peak = rss.stop();
    after = await statuses(daemon.url);
  } finally {
    await daemon.stop();
  }
  const answerFile = join(work, 'agent-answer-10k.json');
  writeFileSync(answerFile, JSON.stringify({ action: 'continue', ping_interval_seconds: INTERVAL }));
  const koa = await startBaseline('koa-fixed.mjs', [answerFile]);
  let floor: Run;
  try {
    process.stderr.write(`agents: the same ${fmt(AGENTS)} agents' reports against Koa answering a fixed JSON\n`);
    floor = await reportsTo(koa.url, koa.pid, 'none', idsFile, duration, async () => {
      await (await fetch(`${koa.url}/metrics`)).text();
    });
  } finally {
    await koa.stop();
  }
  const { stats, cpuPct, steadyPct } = measured;
  const expected = Math.floor((AGENTS / INTERVAL) * duration);
  const problems = [
    falseUnknown.most &&
      `${falseUnknown.most} agents unknown or errored at ${falseUnknown.at} s while every agent reported`,
    stats.failed &&
      `${stats.failed} reports failed (${Object.entries(stats.errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
    stats.stop && `${stats.stop} answers told the agent to stop`,
    stats.ok < expected * 0.95 && `only ${stats.ok} of ~${expected} reports answered`,
  ].filter(Boolean);
  const koaProblems = [
    floor.stats.failed && `Koa: ${floor.stats.failed} reports failed`,
    floor.stats.ok < expected * 0.95 && `Koa: only ${floor.stats.ok} of ~${expected} reports answered`,
  ].filter(Boolean);
  const ratio = floor.steadyPct > 0 ? steadyPct / floor.steadyPct : null;
  const measure = `${fmt(AGENTS)} agents reporting every ${INTERVAL} s for ${duration} s on ${backend}`;
  return [
    {
      measure: `${measure} (${fmt(stats.ok)} reports)`,
      value: `p99 ${fmt(stats.steady_p99_ms, 1)} ms after every agent connected`,
      baseline: `daemon CPU ${fmt(cpuPct)}% of a core, RSS peak ${fmt(peak)} MiB; after: ${Object.entries(after)
        .map(([k, v]) => `${k} ${fmt(v)}`)
        .join(', ')}`,
      ratio: null,
      // The goal as decided for this row: the p99 once every agent has connected (the first interval is
      // 10,000 new connections to a daemon that has just started); that first interval is judged by no
      // failed report, no stop and no agent falsely unknown, with its p99 recorded.
      goal: 'p99 < 50 ms after the first interval; no failed report, no stop, no agent falsely unknown',
      pass: problems.length === 0 && stats.steady_p99_ms < 50,
      note: [
        `p99 of every report ${fmt(stats.p99_ms, 1)} ms; p99 by ${INTERVAL} s interval: ${stats.p99_by_interval_ms.map((x) => fmt(x, 1)).join(', ')} ms (after the first, when every agent connects: ${fmt(stats.steady_p99_ms, 1)} ms); the first by second: ${stats.first_interval_p99_by_second_ms.map((x) => fmt(x, 0)).join(', ')} ms`,
        ...problems,
      ].join('; '),
    },
    {
      measure: `${measure}: the daemon's CPU from ${STEADY_FROM_S} s to the end`,
      value: `${fmt(steadyPct, 1)}% of a core`,
      baseline: `Koa fixed JSON ${fmt(floor.steadyPct, 1)}% (p99 ${fmt(floor.stats.steady_p99_ms, 1)} ms)`,
      ratio,
      goal: '≤ 2× the CPU of Koa under the same reports',
      pass: koaProblems.length || ratio === null ? false : ratio <= 2,
      note: [
        `over the whole run (every agent connecting in the first ${INTERVAL} s): daemon ${fmt(cpuPct, 1)}%, Koa ${fmt(floor.cpuPct, 1)}% of a core`,
        ...koaProblems,
      ].join('; '),
    },
  ];
}
