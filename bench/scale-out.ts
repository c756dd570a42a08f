/**
 * Scale-out, on a throwaway PostgreSQL cluster (initdb + pg_ctl on 127.0.0.1, as the tests start
 * one): the api part's endpoints at 10,000 boxes × 10 versions and 1,000 agents with the daemon on
 * PostgreSQL, against the same fixed-JSON Koa ceiling; then two daemons against one behind nginx
 * (one worker, keep-alive to the daemons), `GET /api/v1/box/ORG/BOX` with wrk -c20, and how soon
 * one daemon sees the other's writes (staleness.ts); then the agents part's rows on PostgreSQL: 1,000
 * agents' reports against Koa (agents.ts) on the seed's database, 10,000 on a database of their own
 * (agents-scale.ts). Both daemons share the database; box files are not involved (the seed's
 * providers have external URLs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDatabase, startTestPostgres } from '../test/helpers/postgres';
import { apiAtScale, wrk } from './api';
import { freePort, start, startDaemon, waitFor, type Proc } from './measure';
import { fmt, ms, type Row } from './report';
import { seed, seedEnv, type Seed } from './seed';
import { agentsAtScale } from './agents-scale';
import { agentReports } from './agents';
import { staleness } from './staleness';

async function proxy(dir: string, port: number, daemons: string[]): Promise<Proc> {
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, 'nginx.conf');
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  const servers = daemons.map((u) => `server ${new URL(u).host};`).join(' ');
  writeFileSync(
    conf,
    `daemon off; ${user} worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 256; }
http { access_log off; client_body_temp_path ${dir}/ct; proxy_temp_path ${dir}/pt;
  fastcgi_temp_path ${dir}/ft; uwsgi_temp_path ${dir}/ut; scgi_temp_path ${dir}/st;
  upstream boxyard { ${servers} keepalive 32; }
  server { listen 127.0.0.1:${port};
    location / { proxy_pass http://boxyard; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host 127.0.0.1; } } }
`,
  );
  const p = start('nginx', ['-c', conf, '-p', dir]);
  await waitFor(`http://127.0.0.1:${port}/healthz`, { status: 200, child: p.child });
  return p;
}

async function twoDaemons(work: string, s: Seed): Promise<Row[]> {
  const duration = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  const procs: Proc[] = [];
  try {
    const a = await startDaemon(s.dataDir, { env: seedEnv(s) });
    procs.push(a);
    const otherDir = join(work, 'pg-second-daemon');
    mkdirSync(otherDir, { recursive: true });
    const b = await startDaemon(otherDir, { env: seedEnv(s) });
    procs.push(b);
    const path = `/api/v1/box/${s.org}/${s.box}`;
    const headers = [`Authorization: Bearer ${s.token}`, 'Accept: application/json'];
    const measure = async (name: string, daemons: string[]) => {
      const port = await freePort();
      const nginx = await proxy(join(work, `nginx-${name}`), port, daemons);
      try {
        await wrk(`http://127.0.0.1:${port}${path}`, headers, 1, 20);
        return await wrk(`http://127.0.0.1:${port}${path}`, headers, duration, 20);
      } finally {
        await nginx.stop();
      }
    };
    process.stderr.write('scale-out: nginx → one daemon, then → two daemons\n');
    const one = await measure('one', [a.url]);
    const two = await measure('two', [a.url, b.url]);
    const errors = [one.errors && `one: ${one.errors}`, two.errors && `two: ${two.errors}`].filter(Boolean).join('; ');
    process.stderr.write('scale-out: staleness, a write through one daemon seen by the other\n');
    const stale = await staleness(a.url, b.url, s);
    const compared: Row = {
      measure: `two daemons vs one behind nginx, \`GET /api/v1/box/ORG/BOX\` on PostgreSQL (wrk -c20)`,
      value: `${fmt(two.rps)} req/s, p99 ${ms(two.p99)}`,
      baseline: `one daemon ${fmt(one.rps)} req/s, p99 ${ms(one.p99)}`,
      ratio: one.rps > 0 ? two.rps / one.rps : null,
      goal: 'informational (2 cores shared by nginx, wrk, PostgreSQL and the daemons)',
      pass: errors ? false : null,
      ...(errors ? { note: errors } : {}),
    };
    return [compared, stale];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

/** A step that failed, as a row: the steps before and after it keep theirs. */
async function step(rows: Row[], name: string, fn: () => Promise<Row[]>): Promise<void> {
  try {
    rows.push(...(await fn()));
  } catch (err) {
    process.stderr.write(`scale-out: ${name} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    const note = String(err).split('\n')[0].slice(0, 300);
    rows.push({
      measure: `scale-out: ${name}`,
      value: 'failed',
      baseline: '—',
      ratio: null,
      goal: '—',
      pass: false,
      note,
    });
  }
}

/** The scale-out steps, in order; BENCH_SCALE_OUT_STEPS (a comma list of them) runs only those. */
const STEPS = ['api', 'two-daemons', 'agents', 'agents-10k'] as const;

function chosenSteps(): Set<string> {
  const asked = process.env.BENCH_SCALE_OUT_STEPS?.split(',').map((x) => x.trim());
  if (!asked) return new Set(STEPS);
  const unknown = asked.filter((x) => !(STEPS as readonly string[]).includes(x));
  if (unknown.length)
    throw new Error(`BENCH_SCALE_OUT_STEPS: no step ${unknown.join(', ')} (steps: ${STEPS.join(', ')})`);
  return new Set(asked);
}

export async function scaleOut(work: string): Promise<Row[]> {
  const steps = chosenSteps();
  const cluster = await startTestPostgres();
  try {
    const rows: Row[] = [];
    // The large database only for the steps that read it (the 10,000 agents have a database of their own).
    if (steps.has('api') || steps.has('two-daemons') || steps.has('agents')) {
      await ensureDatabase(cluster.url('postgres'), 'bench');
      process.stderr.write('scale-out: seeding PostgreSQL: 10,000 boxes × 10 versions, 1,000 agents\n');
      const s = await seed(join(work, 'pg-large'), { database: cluster.url('bench') });
      if (steps.has('api')) await step(rows, 'api', () => apiAtScale(work, s));
      if (steps.has('two-daemons')) await step(rows, 'two daemons', () => twoDaemons(work, s));
      if (steps.has('agents')) await step(rows, '1,000 agents', () => agentReports(work, s));
    }
    if (steps.has('agents-10k')) {
      await ensureDatabase(cluster.url('postgres'), 'agents');
      await step(rows, '10,000 agents', () => agentsAtScale(work, cluster.url('agents')));
    }
    return rows;
  } finally {
    await cluster.stop();
  }
}
