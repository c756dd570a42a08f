/**
 * `npm run bench [-- PART…]`: the benchmark table, every row against a baseline measured in the
 * same run, appended to bench/RESULTS.md with the machine and date. Parts: transfers, tls, mirror,
 * api, metrics, agents, start, load, flood (all by default), and scale-out (PostgreSQL) and soak (30 minutes),
 * by name only). See bench/README.md for what each measures and the settings.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now, ROOT, run, since } from './measure';
import { machine, record, type Row } from './report';
import { seed, type Seed } from './seed';
import { transfers, uploadRoundCount } from './transfers';
import { mirrorFromUpstream } from './mirror';
import { apiAtScale } from './api';
import { agentReports } from './agents';
import { agentsAtScale } from './agents-scale';
import { startup } from './start';
import { mixedLoad } from './load';
import { scaleOut } from './scale-out';
import { tlsTransfers } from './tls';
import { metricsCost } from './metrics-cost';
import { flood } from './flood';
import { soak } from './soak';

const PARTS = [
  'transfers',
  'tls',
  'mirror',
  'start',
  'api',
  'metrics',
  'agents',
  'load',
  'flood',
  'scale-out',
  'soak',
] as const;
type Part = (typeof PARTS)[number];

function parts(argv: string[]): Part[] {
  const unknown = argv.filter((a) => !PARTS.includes(a as Part));
  if (unknown.length) throw new Error(`unknown part ${unknown.join(', ')}; choose from ${PARTS.join(', ')}`);
  // scale-out starts PostgreSQL and seeds it anew, soak takes 30 minutes: asked for by name only.
  return argv.length ? PARTS.filter((p) => argv.includes(p)) : PARTS.filter((p) => p !== 'scale-out' && p !== 'soak');
}

/** The bundle bin/boxyard.mjs runs, as a short digest: the run measures one build of the daemon. */
function bundle(): string {
  const file = join(ROOT, 'dist', 'daemon', 'cli.mjs');
  return existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12) : 'none';
}

async function main() {
  const chosen = parts(process.argv.slice(2));
  // bin/boxyard.mjs runs dist/daemon/cli.mjs: measure the current sources, not an older build.
  if (process.env.BENCH_BUILD !== '0') {
    process.stderr.write('build: npm run build:daemon\n');
    await run('npm', ['run', 'build:daemon'], { timeoutMs: 120_000 });
  }
  const built = bundle();
  const startedAt = new Date();
  const host = machine();
  const t0 = now();
  const work = mkdtempSync(join(tmpdir(), 'boxyard-bench-'));
  const rows: Row[] = [];
  const failed = (part: string, err: unknown): Row => {
    process.stderr.write(`${part} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    return {
      measure: part,
      value: 'failed',
      baseline: '—',
      ratio: null,
      goal: '—',
      pass: false,
      note: String(err).split('\n')[0].slice(0, 300),
    };
  };
  try {
    let seeded: Seed | undefined;
    const large = async (): Promise<Seed> => {
      if (seeded) return seeded;
      if (process.env.BENCH_SEED_DIR) {
        seeded = JSON.parse(readFileSync(join(process.env.BENCH_SEED_DIR, 'bench-seed.json'), 'utf8')) as Seed;
      } else {
        process.stderr.write('seed: 10,000 boxes × 10 versions, 1,000 agents\n');
        const t = now();
        seeded = await seed(join(work, 'large'));
        process.stderr.write(`seed: done in ${since(t).toFixed(1)} s\n`);
      }
      return seeded;
    };
    for (const part of chosen) {
      try {
        if (part === 'transfers') rows.push(...(await transfers(work)));
        if (part === 'tls') rows.push(...(await tlsTransfers(work)));
        if (part === 'mirror') rows.push(...(await mirrorFromUpstream(work)));
        if (part === 'start') rows.push(...(await startup(await large())));
        if (part === 'api') rows.push(...(await apiAtScale(work, await large())));
        if (part === 'metrics') rows.push(...(await metricsCost(work, await large())));
        if (part === 'agents') rows.push(...(await agentReports(work, await large())), ...(await agentsAtScale(work)));
        if (part === 'load') rows.push(...(await mixedLoad(work)));
        if (part === 'flood') rows.push(...(await flood(work)));
        if (part === 'scale-out') rows.push(...(await scaleOut(work)));
        if (part === 'soak') rows.push(...(await soak(work)));
      } catch (err) {
        rows.push(failed(part, err));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const settings =
    [
      `BENCH_SIZE_MB=${process.env.BENCH_SIZE_MB ?? 1024}`,
      `BENCH_ROUNDS=${process.env.BENCH_ROUNDS ?? 2}`,
      `BENCH_UPLOAD_ROUNDS=${uploadRoundCount()}`,
      `BENCH_MIRROR_FILE_MB=${process.env.BENCH_MIRROR_FILE_MB ?? 512}`,
      `BENCH_MIRROR_ROUNDS=${process.env.BENCH_MIRROR_ROUNDS ?? 2}`,
      `BENCH_WRK_SECONDS=${process.env.BENCH_WRK_SECONDS ?? 10}`,
      `BENCH_WRK_SLICES=${process.env.BENCH_WRK_SLICES ?? 5}`,
      `BENCH_AGENT_SECONDS=${process.env.BENCH_AGENT_SECONDS ?? 30}`,
      `BENCH_AGENT_WARM_SECONDS=${process.env.BENCH_AGENT_WARM_SECONDS ?? 60}`,
      `BENCH_START_RUNS=${process.env.BENCH_START_RUNS ?? 3}`,
      `BENCH_LOAD_SECONDS=${process.env.BENCH_LOAD_SECONDS ?? 30}`,
      `BENCH_SOAK_SECONDS=${process.env.BENCH_SOAK_SECONDS ?? 1800}`,
    ].join(' ') +
    `; daemon bundle ${built}${bundle() === built ? '' : ` (**rebuilt by someone else during the run**, now ${bundle()}: parts after that measured another build)`}`;
  record(rows, { startedAt, machine: host, parts: chosen, settings, seconds: since(t0) });
  if (rows.some((r) => r.value === 'failed')) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
