/**
 * 1,000 agents reporting every 10 s (clients/agents-report.mjs, a process of its own, each agent
 * on a keep-alive connection of its own as a real agent) → the daemon's CPU time over the window,
 * as % of one core, from /proc/PID/stat. The first seconds (JIT warm-up, the first round of
 * connections) are not counted. The same load against Koa answering the daemon's answer as a
 * fixed JSON (baselines/koa-fixed.mjs), measured the same way, is the floor of any Koa server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { cpuSeconds, now, ROOT, run, since, sleep, startBaseline, startDaemon } from './measure';
import { fmt, type Row } from './report';
import type { Seed } from './seed';

/** Every seeded agent alive again (the watchdog turns agents silent for minutes unknown, then errored). */
function revive(s: Seed): void {
  const db = new SqliteDatabase(join(s.dataDir, 'boxyard.db'));
  try {
    db.prepare("UPDATE agents SET status = 'idle', last_ping_at = ? WHERE pool_id = ?").run(new Date().toISOString(), s.poolId);
  } finally {
    db.close();
  }
}

interface ReportStats { sent: number; ok: number; failed: number; stop: number; p99_ms: number }

const INTERVAL = 10;
const WARM = 5;

/** Runs the agents' client against `url` and measures the server's CPU over the window after warm-up. */
async function underReports(url: string, pid: number, token: string, idsFile: string, duration: number): Promise<{ pct: number; stats: ReportStats }> {
  const client = run(process.execPath, [join(ROOT, 'bench', 'clients', 'agents-report.mjs'), url, token, idsFile, String(INTERVAL), String(WARM + duration)], { timeoutMs: (WARM + duration + 60) * 1000 });
  await sleep(WARM * 1000);
  const c0 = cpuSeconds(pid);
  const t1 = now();
  await sleep(duration * 1000);
  const pct = ((cpuSeconds(pid) - c0) / since(t1)) * 100;
  return { pct, stats: JSON.parse(await client) as ReportStats };
}

export async function agentReports(work: string, s: Seed): Promise<Row[]> {
  const duration = Number(process.env.BENCH_AGENT_SECONDS ?? 30);
  revive(s);
  const idsFile = join(work, 'agent-ids.json');
  writeFileSync(idsFile, JSON.stringify(s.agentIds));
  const daemon = await startDaemon(s.dataDir);
  let measured: { pct: number; stats: ReportStats };
  let idlePct: number;
  try {
    await sleep(2_000);
    const idle0 = cpuSeconds(daemon.pid);
    const t0 = now();
    await sleep(5_000);
    idlePct = ((cpuSeconds(daemon.pid) - idle0) / since(t0)) * 100;
    process.stderr.write(`agents: ${s.agentIds.length} agents every ${INTERVAL} s for ${WARM + duration} s\n`);
    measured = await underReports(daemon.url, daemon.pid, s.agentToken, idsFile, duration);
  } finally {
    await daemon.stop();
  }
  const answerFile = join(work, 'agent-answer.json');
  writeFileSync(answerFile, JSON.stringify({ action: 'continue', ping_interval_seconds: INTERVAL }));
  const koa = await startBaseline('koa-fixed.mjs', [answerFile]);
  let floor: number;
  try {
    process.stderr.write('agents: the same reports against Koa answering a fixed JSON\n');
    floor = (await underReports(koa.url, koa.pid, 'none', idsFile, duration)).pct;
  } finally {
    await koa.stop();
  }

  const { pct, stats } = measured;
  const expected = Math.floor((s.agentIds.length / INTERVAL) * (WARM + duration));
  const problems = [
    stats.failed && `${stats.failed} reports failed`,
    stats.stop && `${stats.stop} answers told the agent to stop`,
    stats.ok < expected * 0.95 && `only ${stats.ok} of ~${expected} reports answered`,
  ].filter(Boolean);
  return [{
    measure: `${fmt(s.agentIds.length)} agents reporting every ${INTERVAL} s (${fmt(stats.ok)} reports, p99 ${fmt(stats.p99_ms, 1)} ms)`,
    value: `${fmt(pct, 1)}% of a core`,
    baseline: `Koa fixed JSON ${fmt(floor, 1)}% (idle daemon ${fmt(idlePct, 1)}%)`,
    ratio: null,
    goal: '< 5% of a core',
    pass: problems.length ? false : pct < 5,
    ...(problems.length ? { note: problems.join('; ') } : {}),
  }];
}
