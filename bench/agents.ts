/**
 * 1,000 agents reporting every 10 s (clients/agents-report.mjs, a process of its own, each agent
 * on a keep-alive connection of its own as a real agent) → the daemon's CPU time in steady state,
 * as % of one core, from /proc/PID/stat. Steady state is after a warm-up (BENCH_AGENT_WARM_SECONDS,
 * 60): the first round of connections alone takes a whole interval, and at 100 requests a second
 * V8 takes about a minute to optimize the request path (measured in 30 s windows from the start:
 * 9.7, 6.0, 4.6, 4.7, 3.7% of a core). The warm-up's own figure is reported beside it. The same
 * load against Koa answering the daemon's answer as a fixed JSON (baselines/koa-fixed.mjs),
 * measured the same way, is the floor of any Koa server. On the data folder's SQLite in the `agents` part, on
 * PostgreSQL in `scale-out` (the seed's database).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { now, ROOT, run, since, sleep, startBaseline, startDaemon } from './measure';
import { cpuSeconds } from './proc-stats';
import { fmt, type Row } from './report';
import { seedEnv, type Seed } from './seed';
import { revive } from './agents-scale';

interface ReportStats {
  sent: number;
  ok: number;
  failed: number;
  stop: number;
  p99_ms: number;
}

const INTERVAL = 10;

interface Measured {
  pct: number;
  warmPct: number;
  stats: ReportStats;
}

/** Runs the agents' client against `url`: the server's CPU during the warm-up, then over the window after it. */
async function underReports(
  url: string,
  pid: number,
  token: string,
  idsFile: string,
  warm: number,
  duration: number,
): Promise<Measured> {
  const client = run(
    process.execPath,
    [
      join(ROOT, 'bench', 'clients', 'agents-report.mjs'),
      url,
      token,
      idsFile,
      String(INTERVAL),
      String(warm + duration),
    ],
    { timeoutMs: (warm + duration + 60) * 1000 },
  );
  const c0 = cpuSeconds(pid);
  const t0 = now();
  await sleep(warm * 1000);
  const c1 = cpuSeconds(pid);
  const t1 = now();
  const warmPct = ((c1 - c0) / since(t0)) * 100;
  await sleep(duration * 1000);
  const pct = ((cpuSeconds(pid) - c1) / since(t1)) * 100;
  return { pct, warmPct, stats: JSON.parse(await client) as ReportStats };
}

export async function agentReports(work: string, s: Seed): Promise<Row[]> {
  const duration = Number(process.env.BENCH_AGENT_SECONDS ?? 30);
  const warm = Number(process.env.BENCH_AGENT_WARM_SECONDS ?? 60);
  await revive(s);
  const idsFile = join(work, 'agent-ids.json');
  writeFileSync(idsFile, JSON.stringify(s.agentIds));
  const daemon = await startDaemon(s.dataDir, { env: seedEnv(s) });
  let measured: Measured;
  let idlePct: number;
  try {
    await sleep(2_000);
    const idle0 = cpuSeconds(daemon.pid);
    const t0 = now();
    await sleep(5_000);
    idlePct = ((cpuSeconds(daemon.pid) - idle0) / since(t0)) * 100;
    process.stderr.write(`agents: ${s.agentIds.length} agents every ${INTERVAL} s for ${warm} + ${duration} s\n`);
    measured = await underReports(daemon.url, daemon.pid, s.agentToken, idsFile, warm, duration);
  } finally {
    await daemon.stop();
  }
  const answerFile = join(work, 'agent-answer.json');
  writeFileSync(answerFile, JSON.stringify({ action: 'continue', ping_interval_seconds: INTERVAL }));
  const koa = await startBaseline('koa-fixed.mjs', [answerFile]);
  let floor: Measured;
  try {
    process.stderr.write('agents: the same reports against Koa answering a fixed JSON\n');
    floor = await underReports(koa.url, koa.pid, 'none', idsFile, warm, duration);
  } finally {
    await koa.stop();
  }

  const { pct, warmPct, stats } = measured;
  const expected = Math.floor((s.agentIds.length / INTERVAL) * (warm + duration));
  const problems = [
    stats.failed && `${stats.failed} reports failed`,
    stats.stop && `${stats.stop} answers told the agent to stop`,
    stats.ok < expected * 0.95 && `only ${stats.ok} of ~${expected} reports answered`,
  ].filter(Boolean);
  const ratio = floor.pct > 0 ? pct / floor.pct : null;
  return [
    {
      measure: `${fmt(s.agentIds.length)} agents reporting every ${INTERVAL} s${s.database ? ' on PostgreSQL' : ''} (${fmt(stats.ok)} reports, p99 ${fmt(stats.p99_ms, 1)} ms)`,
      value: `${fmt(pct, 1)}% of a core`,
      baseline: `Koa fixed JSON ${fmt(floor.pct, 1)}% (idle daemon ${fmt(idlePct, 1)}%)`,
      ratio,
      goal: '≤ 2× the CPU of Koa under the same reports',
      pass: problems.length || ratio === null ? false : ratio <= 2,
      note: [
        `the first ${warm} s after the daemon started (every agent connecting, V8 optimizing the request path): ${fmt(warmPct, 1)}% of a core, Koa ${fmt(floor.warmPct, 1)}%; the row is the ${duration} s after`,
        ...problems,
      ].join('; '),
    },
  ];
}
