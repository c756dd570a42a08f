/**
 * The `agents` (scale) row: 10,000 agents (clients/agents-report.mjs, a process of its own, each agent
 * on a keep-alive connection of its own) reporting every 10 s, 1,000 reports a second, for
 * BENCH_SCALE_AGENT_SECONDS (120), on a database of their own: the data folder's SQLite, or
 * PostgreSQL in the scale-out part. Agents register through the agent protocol first (seed.ts).
 * Recorded: the reports' p99 as the simulator sees it, every agent's status sampled from the
 * daemon's /metrics every 2 s (an `unknown` or `errored` one while all report is a false one), and
 * the daemon's CPU and peak RSS over the run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import SqliteDatabase from 'better-sqlite3';
import { cpuSeconds, now, ROOT, rssSampler, run, since, sleep, startDaemon } from './measure';
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

export async function agentsAtScale(work: string, database?: string): Promise<Row> {
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
  let stats: ReportStats;
  let cpuPct: number;
  let peak: number;
  let after: Record<string, number>;
  try {
    process.stderr.write(`agents: ${fmt(AGENTS)} agents every ${INTERVAL} s for ${duration} s\n`);
    const rss = rssSampler(daemon.pid);
    const c0 = cpuSeconds(daemon.pid);
    const t0 = now();
    const client = run(
      process.execPath,
      [
        join(ROOT, 'bench', 'clients', 'agents-report.mjs'),
        daemon.url,
        s.agentToken,
        idsFile,
        String(INTERVAL),
        String(duration),
      ],
      { timeoutMs: (duration + 120) * 1000 },
    );
    let done = false;
    void client.finally(() => {
      done = true;
    });
    while (!done) {
      await sleep(2_000);
      const st = await statuses(daemon.url);
      const bad = (st.unknown ?? 0) + (st.errored ?? 0);
      if (bad > falseUnknown.most) Object.assign(falseUnknown, { most: bad, at: Math.round(since(t0)) });
    }
    stats = JSON.parse(await client) as ReportStats;
    cpuPct = ((cpuSeconds(daemon.pid) - c0) / since(t0)) * 100;
    peak = rss.stop();
    after = await statuses(daemon.url);
  } finally {
    await daemon.stop();
  }
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
  return {
    measure: `${fmt(AGENTS)} agents reporting every ${INTERVAL} s for ${duration} s on ${backend} (${fmt(stats.ok)} reports)`,
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
  };
}
