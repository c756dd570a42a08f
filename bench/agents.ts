/**
 * 1,000 agents reporting every 10 s (clients/agents-report.mjs, a process of its own, one new
 * connection per report) → the daemon's CPU time over the window, as % of one core, from
 * /proc/PID/stat. The first seconds (JIT warm-up, the first round of connections) are not counted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { cpuSeconds, now, ROOT, run, since, sleep, startDaemon } from './measure';
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

export async function agentReports(work: string, s: Seed): Promise<Row[]> {
  const duration = Number(process.env.BENCH_AGENT_SECONDS ?? 30);
  const interval = 10;
  const warm = 5;
  revive(s);
  const daemon = await startDaemon(s.dataDir);
  try {
    await sleep(2_000);
    const idle0 = cpuSeconds(daemon.pid);
    const t0 = now();
    await sleep(5_000);
    const idlePct = ((cpuSeconds(daemon.pid) - idle0) / since(t0)) * 100;

    const idsFile = join(work, 'agent-ids.json');
    writeFileSync(idsFile, JSON.stringify(s.agentIds));
    process.stderr.write(`agents: ${s.agentIds.length} agents every ${interval} s for ${warm + duration} s\n`);
    const client = run(process.execPath, [join(ROOT, 'bench', 'clients', 'agents-report.mjs'), daemon.url, s.agentToken, idsFile, String(interval), String(warm + duration)], { timeoutMs: (warm + duration + 60) * 1000 });
    await sleep(warm * 1000);
    const c0 = cpuSeconds(daemon.pid);
    const t1 = now();
    await sleep(duration * 1000);
    const pct = ((cpuSeconds(daemon.pid) - c0) / since(t1)) * 100;
    const stats = JSON.parse(await client) as { sent: number; ok: number; failed: number; stop: number; p99_ms: number };

    const expected = Math.floor((s.agentIds.length / interval) * (warm + duration));
    const problems = [
      stats.failed && `${stats.failed} reports failed`,
      stats.stop && `${stats.stop} answers told the agent to stop`,
      stats.ok < expected * 0.95 && `only ${stats.ok} of ~${expected} reports answered`,
    ].filter(Boolean);
    return [{
      measure: `${fmt(s.agentIds.length)} agents reporting every ${interval} s (${fmt(stats.ok)} reports, p99 ${fmt(stats.p99_ms, 1)} ms)`,
      value: `${fmt(pct, 1)}% of a core`,
      baseline: `idle daemon ${fmt(idlePct, 1)}%`,
      ratio: null,
      goal: '< 5% of a core',
      pass: problems.length ? false : pct < 5,
      ...(problems.length ? { note: problems.join('; ') } : {}),
    }];
  } finally {
    await daemon.stop();
  }
}
