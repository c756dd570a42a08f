import type { Context, Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { ROOT, isUiPath } from './route-table';

/**
 * Paths answered outside the routers (the route table's root paths without parameters: health,
 * the CA, discovery, the metrics), each its own label; any other path no route matched is `unmatched`.
 */
const FIXED: ReadonlySet<string> = new Set(
  Object.values(ROOT)
    .map((r) => r.path)
    .filter((path) => !path.includes(':')),
);

/**
 * The route a request is counted under: the template @koa/router matched (`/api/v1/box/:username/:name`),
 * never the raw path, so that the number of series stays bounded whatever clients ask.
 */
export function routeLabel(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (FIXED.has(ctx.path)) return ctx.path;
  if (isUiPath(ctx.path)) return '/ui';
  return 'unmatched';
}

const isStream = (body: unknown): boolean => typeof (body as { pipe?: unknown } | null)?.pipe === 'function';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

interface Series {
  labels: { route: string; method: string };
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Request latency by route template and method: counted here in plain arrays, and handed to
 * prom-client's registry (which formats it) when Prometheus scrapes, rather than observed by
 * prom-client's Histogram, which checks and hashes the labels of every observation. What metrics
 * cost a request is bench/README.md's `metrics` row: CPU time per request, metrics on against off.
 */
class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of a route and method, made on its first request. */
  of(route: string, method: string): Series {
    const key = `${route} ${method}`;
    const known = this.series.get(key);
    if (known) return known;
    const s: Series = { labels: { route, method }, buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
    this.series.set(key, s);
    return s;
  }

  static observe(s: Series, seconds: number): void {
    const i = LATENCY_BUCKETS.findIndex((b) => seconds <= b);
    if (i >= 0) s.buckets[i]++;
    s.sum += seconds;
    s.count++;
  }

  /** prom-client's shape of a histogram: cumulative `_bucket` series with `le`, then `_sum` and `_count`. */
  get() {
    const values = [...this.series.values()].flatMap((s) => {
      let cumulative = 0;
      return [
        ...LATENCY_BUCKETS.map((le, i) => {
          cumulative += s.buckets[i];
          return { labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` };
        }),
        { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` },
        { labels: s.labels, value: s.sum, metricName: `${this.name}_sum` },
        { labels: s.labels, value: s.count, metricName: `${this.name}_count` },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A gauge measured when Prometheus scrapes: each label set with its value (labels absent now read 0). */
export interface ScrapedGauge {
  name: string;
  help: string;
  label?: string;
  /** Label values always shown, 0 when absent from `read()`. */
  known?: readonly string[];
  read(): Promise<Record<string, number>> | Record<string, number>;
}

/**
 * The daemon's Prometheus metrics, one registry per daemon. Requests are counted by
 * route template, method and status with a latency histogram; transfers, mirror bytes and
 * read-cache lookups are counted where they happen; the rest (agents by status, mirror jobs by
 * state, leadership, the database pool) is read when scraped. Served by data/metrics-routes.ts.
 */
export class Metrics {
  readonly registry = new Registry();
  /**
   * Requests by `route method status`, counted here and handed to prom-client when scraped, so that no request
   * hashes labels (the cost of metrics per request: bench/README.md's `metrics` row).
   */
  private readonly answered = new Map<
    string,
    { labels: { route: string; method: string; status: string }; n: number; latency: Series }
  >();
  private readonly latency = new LatencyHistogram(
    'boxyard_http_request_duration_seconds',
    'Time from a request to the end of its answer, by route template and method.',
  );
  private readonly bytes: Counter<'direction'>;
  private readonly transfers: Counter<'direction'>;
  private readonly mirrorBytes: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters (promtool check metrics refuses them); the per-type series stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    const registers = [this.registry];
    const answered = this.answered;
    new Counter({
      name: 'boxyard_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect() {
        this.reset();
        for (const { labels, n } of answered.values()) this.inc(labels, n);
      },
    });
    this.registry.registerMetric(this.latency as unknown as Parameters<Registry['registerMetric']>[0]);
    this.bytes = new Counter({
      name: 'boxyard_transfer_bytes_total',
      help: 'Box file bytes received by uploads and sent by downloads.',
      labelNames: ['direction'],
      registers,
    });
    this.transfers = new Counter({
      name: 'boxyard_transfers_total',
      help: 'Completed box file uploads and downloads.',
      labelNames: ['direction'],
      registers,
    });
    this.mirrorBytes = new Counter({
      name: 'boxyard_mirror_fetched_bytes_total',
      help: 'Bytes mirror jobs fetched from upstreams.',
      registers,
    });
    for (const d of ['upload', 'download']) {
      this.bytes.inc({ direction: d }, 0);
      this.transfers.inc({ direction: d }, 0);
    }
  }

  /**
   * Counts every request once answered. Mounted first (app.ts), so the status is final when the
   * rest of the stack returns; an answer streamed after that (a download) is counted when its
   * connection is done with it, with the bytes it sent.
   */
  middleware(): Middleware {
    return async (ctx, next) => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const streaming = (ctx.respond === false || isStream(ctx.body)) && !ctx.res.writableEnded && !ctx.res.destroyed;
        if (streaming) ctx.res.once('close', () => this.record(ctx, started));
        else this.record(ctx, started);
      }
    };
  }

  private record(ctx: Context, started: bigint): void {
    const route = routeLabel(ctx);
    const method = METHODS.has(ctx.method) ? ctx.method : 'OTHER';
    const status = ctx.status;
    const key = `${route} ${method} ${status}`;
    let seen = this.answered.get(key);
    if (seen) seen.n++;
    else {
      seen = { labels: { route, method, status: String(status) }, n: 1, latency: this.latency.of(route, method) };
      this.answered.set(key, seen);
    }
    LatencyHistogram.observe(seen.latency, Number(process.hrtime.bigint() - started) / 1e9);
    // A box file sent whole or in part (stored, or passed on from the pull-through cache's upstream).
    if (
      route === ROOT.download.path &&
      method === 'GET' &&
      (status === 200 || status === 206) &&
      ctx.res.writableEnded
    ) {
      this.transferred('download', Number(ctx.res.getHeader('content-length') ?? 0));
    }
  }

  /** A box file stored by an upload, or sent whole or in part by a download. */
  transferred(direction: 'upload' | 'download', bytes: number): void {
    this.bytes.inc({ direction }, bytes);
    this.transfers.inc({ direction });
  }

  mirrorFetched(bytes: number): void {
    if (bytes > 0) this.mirrorBytes.inc(bytes);
  }

  /** Counts kept elsewhere (read-cache hits and misses), monotonic, reported as a counter at each scrape. */
  countedElsewhere(opts: { name: string; help: string; label: string; read(): Record<string, number> }): void {
    new Counter({
      name: opts.name,
      help: opts.help,
      labelNames: [opts.label],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [value, n] of Object.entries(opts.read())) this.inc({ [opts.label]: value }, n);
      },
    });
  }

  scraped(g: ScrapedGauge): void {
    const label = g.label;
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames: label ? [label] : [],
      registers: [this.registry],
      async collect() {
        this.reset();
        let values: Record<string, number>;
        try {
          values = await g.read();
        } catch {
          // The database down: this gauge is left out (not shown as zeros); the rest of the scrape answers.
          return;
        }
        for (const k of g.known ?? []) if (label) this.set({ [label]: k }, 0);
        for (const [k, v] of Object.entries(values)) label ? this.set({ [label]: k }, v) : this.set(v);
      },
    });
  }

  /** The text exposition format, and its content type. */
  async exposition(): Promise<{ type: string; text: string }> {
    return { type: this.registry.contentType, text: await this.registry.metrics() };
  }
}
