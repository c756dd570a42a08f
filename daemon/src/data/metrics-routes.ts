import { timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { sql, type Kysely } from 'kysely';
import { AGENT_STATUSES } from '../contract/wire/jsonapi';
import { JOB_STATES } from '../contract/wire/mirror';
import { ForbiddenError } from '../lib/errors';
import type { LeaderSource } from '../http/health';
import { isLoopback } from '../lib/host-names';
import type { Metrics } from '../http/metrics';
import { ROOT } from '../http/route-table';
import type { Store } from '../store/db';
import type { Database } from '../store/schema';
import { executeReadOnly } from '../store/cache/statement-tables';

async function countsBy(
  db: Kysely<Database>,
  table: 'agents' | 'mirror_jobs',
  column: 'status' | 'state',
): Promise<Record<string, number>> {
  const rows = await executeReadOnly(
    sql<{
      k: string;
      n: number | string;
    }>`select ${sql.ref(column)} as k, count(*) as n from ${sql.table(table)} group by ${sql.ref(column)}`,
    db,
  );
  return Object.fromEntries(rows.rows.map((r) => [r.k, Number(r.n)]));
}

/**
 * What is read when Prometheus scrapes (the counters are kept as things happen: http/metrics.ts):
 * agents by status, mirror jobs by state (two GROUP BY queries), whether this daemon leads, the
 * read caches' hits and misses, and on PostgreSQL the connection pool.
 */
export function registerScrapedMetrics(m: Metrics, deps: { store: Store; leadership: LeaderSource }): void {
  m.scraped({
    name: 'boxyard_agents',
    help: 'Agents by status, all pools.',
    label: 'status',
    known: AGENT_STATUSES,
    read: () => countsBy(deps.store.db, 'agents', 'status'),
  });
  m.scraped({
    name: 'boxyard_mirror_jobs',
    help: 'Mirror jobs by state.',
    label: 'state',
    known: JOB_STATES,
    read: () => countsBy(deps.store.db, 'mirror_jobs', 'state'),
  });
  m.scraped({
    name: 'boxyard_leader',
    help: '1 while this daemon runs the background work (watchdog, mirror jobs, garbage collection).',
    read: () => ({ '': deps.leadership.leading ? 1 : 0 }),
  });
  const lookups = deps.store.versions.lookups;
  m.countedElsewhere({
    name: 'boxyard_read_cache_lookups_total',
    help: 'Read-cache lookups, served from memory (hit) or from the database (miss).',
    label: 'result',
    read: () => ({ hit: lookups.hits, miss: lookups.misses }),
  });
  const store = deps.store;
  if (store.dialect !== 'postgres') return;
  const pool = store.pool;
  m.scraped({
    name: 'boxyard_db_pool_connections',
    help: 'PostgreSQL pool connections by state.',
    label: 'state',
    known: ['idle', 'busy'],
    read: () => ({ idle: pool.idleCount, busy: pool.totalCount - pool.idleCount }),
  });
  m.scraped({
    name: 'boxyard_db_pool_waiting',
    help: 'Queries waiting for a PostgreSQL pool connection now.',
    read: () => ({ '': pool.waitingCount }),
  });
  m.countedElsewhere({
    name: 'boxyard_db_pool_waits_total',
    help: 'Times a query found every PostgreSQL pool connection busy and waited.',
    label: 'pool',
    read: () => ({ main: store.poolWaits.count }),
  });
}

/**
 * A scrape from this machine itself: the connection's own address is loopback (an IPv4 one mapped
 * into IPv6 too, as a daemon on `::` sees it) and no proxy forwarded it. Never X-Forwarded-For:
 * with `trustProxy` anyone reaching the daemon directly could write 127.0.0.1 there, and behind a
 * proxy on this machine every client would look local.
 */
function fromThisMachine(ctx: Context): boolean {
  return isLoopback(ctx.req.socket.remoteAddress ?? '') && !ctx.get('x-forwarded-for') && !ctx.get('forwarded');
}

/** Equal without telling how much of it matched. */
function sameSecret(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics`, Prometheus' text format, to a client on this machine, or with
 * `Authorization: Bearer` the scrape token (`BOXYARD_METRICS_TOKEN`) from anywhere. Answered
 * before authentication: the scrape token is not a user's token.
 */
export function metricsRoute(m: Metrics, token: string | undefined): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ROOT.metrics.path || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const allowed = token
      ? (bearer !== undefined && sameSecret(bearer, token)) || (!bearer && fromThisMachine(ctx))
      : fromThisMachine(ctx);
    if (!allowed) {
      throw new ForbiddenError(
        token
          ? 'Metrics answer to this machine, or to the scrape token (BOXYARD_METRICS_TOKEN) as a Bearer token.'
          : 'Metrics answer only to this machine; set BOXYARD_METRICS_TOKEN to let Prometheus scrape from elsewhere with it.',
      );
    }
    const { type, text } = await m.exposition();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = type;
    ctx.body = text;
  };
}
