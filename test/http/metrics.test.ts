import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { hostedProvider } from '../helpers/blobs';
import { createBox } from '../helpers/registry';
import { rawGet, rawPut } from '../helpers/upload';
import { JSONAPI, createAgentToken, createOrg, createPool } from '../helpers/agents';

/** Debian's promtool (package prometheus): mandatory in CI. */
const promtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

/** `promtool check metrics` on a scrape: its exit code and what it said. */
function checkMetrics(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    p.stdout.on('data', (b: Buffer) => {
      output += b.toString();
    });
    p.stderr.on('data', (b: Buffer) => {
      output += b.toString();
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, output }));
    p.stdin.end(text);
  });
}

/** The value of one series in a scrape, or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics (Prometheus)', () => {
  let d: TestDaemon;
  const SCRAPE_TOKEN = 'scrape-token-0123456789abcdef';
  beforeAll(async () => {
    d = await startTestDaemon({ config: { metricsToken: SCRAPE_TOKEN, trustProxy: true } });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('counts requests by route template (never a raw path), transfers, agents, leadership and caches, in a format promtool accepts', async () => {
    const alice = await d.user('alice', { orgs: ['acme'] });
    await createBox(alice.http, 'acme', 'web');
    const api = await hostedProvider(alice.http, 'acme', 'web', '1.0.0');
    const file = randomBytes(123_457);
    const put = await rawPut((await alice.http.get(`${api}/upload`)).json.upload_path, file);
    expect(put.status).toBe(200);
    expect((await alice.http.put('/api/v1/box/acme/web/version/1.0.0/release')).status).toBe(200);
    const shown = await alice.http.get(`${api}`);
    const got = await rawGet(shown.json.download_url as string);
    expect(got.status).toBe(200);
    expect(got.body.length).toBe(file.length);
    for (const path of ['/acme/web', '/acme/web', '/api/v1/box/acme/web', '/no/such/thing/here-7f3a'])
      await d.http.get(path);
    const pools = (await d.user('bob')).http.withContentType(JSONAPI);
    await createOrg(pools, 'lab');
    const pool = await createPool(pools, 'lab', 'p1');
    const t = await createAgentToken(pools, pool.id);
    expect(
      (await d.http.post('/api/agent/register', { name: 'a1' }, { headers: { authorization: `Bearer ${t.token}` } }))
        .status,
    ).toBe(201);

    const r = await d.http.get('/metrics', { headers: { accept: 'text/plain' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = r.text;
    expect(
      value(m, 'boxyard_http_requests_total{route="/:org/:box",method="GET",status="200"}'),
    ).toBeGreaterThanOrEqual(2);
    expect(
      value(m, 'boxyard_http_requests_total{route="/api/v1/box/:username/:name",method="GET",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(value(m, 'boxyard_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(m).toMatch(
      /^boxyard_http_request_duration_seconds_bucket\{le="0\.005",route="\/:org\/:box",method="GET"\} \d+$/m,
    );
    // No raw path becomes a label.
    expect(m).not.toMatch(/route="[^"]*(acme|here-7f3a)/);
    expect(value(m, 'boxyard_transfer_bytes_total{direction="upload"}')).toBe(file.length);
    expect(value(m, 'boxyard_transfers_total{direction="upload"}')).toBe(1);
    expect(value(m, 'boxyard_transfer_bytes_total{direction="download"}')).toBe(file.length);
    expect(value(m, 'boxyard_transfers_total{direction="download"}')).toBe(1);
    expect(value(m, 'boxyard_agents{status="idle"}')).toBe(1);
    expect(value(m, 'boxyard_agents{status="errored"}')).toBe(0);
    expect(value(m, 'boxyard_mirror_jobs{state="running"}')).toBe(0);
    expect(value(m, 'boxyard_mirror_fetched_bytes_total')).toBe(0);
    expect(value(m, 'boxyard_leader')).toBe(1);
    expect(value(m, 'boxyard_read_cache_lookups_total{result="miss"}')).toBeGreaterThan(0);
    expect(value(m, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(m).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    if (d.deps.store.dialect === 'postgres') {
      expect(value(m, 'boxyard_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
      expect(value(m, 'boxyard_db_pool_waits_total{pool="main"}')).toBeGreaterThanOrEqual(0);
    } else {
      expect(value(m, 'boxyard_read_cache_lookups_total{result="hit"}')).toBeGreaterThan(0);
    }

    // Every metric deploy/grafana-dashboard.json plots is one the daemon exposes.
    const dashboard = JSON.parse(
      readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const plotted = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(boxyard|process|nodejs)_\w+/g) ?? [])),
    );
    const exposed = new Set(
      [...m.matchAll(/^# TYPE (\w+) (\w+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
      ),
    );
    // The pool's series exist on PostgreSQL only (SQLite has no pool).
    const onThisDatabase = (n: string) => d.deps.store.dialect === 'postgres' || !n.startsWith('boxyard_db_pool_');
    expect([...plotted].filter((n) => onThisDatabase(n) && !exposed.has(n))).toEqual([]);
    expect(plotted.size).toBeGreaterThan(8);

    expect(promtool || process.env.CI !== 'true', 'CI=true requires promtool (apt-get install prometheus)').toBe(true);
    if (promtool) {
      const checked = await checkMetrics(m);
      expect(checked.output).toBe('');
      expect(checked.code).toBe(0);
    }
  });

  it("answers only this machine, or the scrape token from elsewhere; a user's token does not do", async () => {
    const far = { 'x-forwarded-for': '203.0.113.9' };
    const refused = await d.http.get('/metrics', { headers: far });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'forbidden', errors: [expect.stringMatching(/BOXYARD_METRICS_TOKEN/)] });
    expect(
      (await d.http.get('/metrics', { headers: { ...far, authorization: `Bearer ${d.adminToken}` } })).status,
    ).toBe(403);
    expect((await d.http.get('/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
      403,
    );
    // The daemon trusts X-Forwarded-For for client addresses, but a forwarded request is never "this machine":
    // anyone reaching it directly could write 127.0.0.1 there.
    expect((await d.http.get('/metrics', { headers: { 'x-forwarded-for': '127.0.0.1' } })).status).toBe(403);
    const allowed = await d.http.get('/metrics', { headers: { ...far, authorization: `Bearer ${SCRAPE_TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('# TYPE boxyard_http_requests_total counter');
    // The refusals are counted too, under the fixed label.
    expect(
      value(
        (await d.http.get('/metrics')).text,
        'boxyard_http_requests_total{route="/metrics",method="GET",status="403"}',
      ),
    ).toBe(4);
  });
});
