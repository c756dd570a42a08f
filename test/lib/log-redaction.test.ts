import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/daemon';
import { HttpClient } from '../helpers/http';
import { createAgentToken, createOrg, createPool, JSONAPI } from '../helpers/agents';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/spawn-daemon';
import { rawPut } from '../helpers/upload';
import { waitForJob } from '../helpers/mirror';

/**
 * The daemon as users run it, at `--log-level debug` (a line per request, with its headers):
 * across an upload, failed requests and every way a credential is presented, no secret reaches
 * the log.
 */
describe('the log at debug level', () => {
  let data: string;
  let d: SpawnedDaemon;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'boxyard-logs-'));
    d = await spawnDaemon({ dataDir: data, env: { BOXYARD_LOG_LEVEL: 'debug' } });
    const anon = new HttpClient(d.url);
    const token = (
      await anon.post('/api/v1/authenticate', { user: { login: ADMIN.username, password: ADMIN.password } })
    ).json.token as string;
    secrets.userToken = token;
    const http = anon.withToken(token);

    // An upload: the URL's secret is the capability.
    await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    expect(
      (await http.post('/api/v1/boxes', { box: { username: 'acme', name: 'logged', is_private: false } })).status,
    ).toBe(200);
    expect((await http.post('/api/v1/box/acme/logged/versions', { version: { version: '1.0.0' } })).status).toBe(200);
    expect(
      (await http.post('/api/v1/box/acme/logged/version/1.0.0/providers', { provider: { name: 'virtualbox' } })).status,
    ).toBe(200);
    const uploadPath = (await http.get('/api/v1/box/acme/logged/version/1.0.0/provider/virtualbox/upload')).json
      .upload_path as string;
    secrets.uploadSecret = uploadPath.split('/uploads/')[1];
    expect((await rawPut(uploadPath, randomBytes(100_000))).status).toBe(200);
    // Used up: a failed PUT to the same URL.
    expect((await rawPut(uploadPath, randomBytes(10))).status).toBe(404);

    // The same token through each transport clients use, and a wrong one.
    expect((await anon.get('/api/v1/box/acme/logged', { headers: { 'x-atlas-token': token } })).status).toBe(200);
    expect((await anon.get('/api/v1/box/acme/logged', { headers: { 'x-service-token': token } })).status).toBe(200);
    expect((await anon.get(`/api/v1/box/acme/logged?access_token=${token}`)).status).toBe(200);
    secrets.wrongToken = randomBytes(32).toString('base64url');
    expect((await anon.withToken(secrets.wrongToken).get('/api/v2/organizations')).status).toBe(401);

    // A failed login's password.
    secrets.password = `pw-${randomBytes(12).toString('hex')}`;
    expect(
      (await anon.post('/api/v1/authenticate', { user: { login: ADMIN.username, password: secrets.password } })).status,
    ).toBe(401);

    // An agent token, presented by an agent.
    const api = http.withContentType(JSONAPI);
    await createOrg(api, 'lab');
    const pool = await createPool(api, 'lab', 'pool');
    secrets.agentToken = (await createAgentToken(api, pool.id)).token;
    expect((await anon.withToken(secrets.agentToken).post('/api/agent/register', { name: 'rack-1' })).status).toBe(201);

    // An upstream's token, and a mirror from it that fails (nothing listens there).
    secrets.upstreamToken = randomBytes(24).toString('base64url');
    const up = await http.post('/api/boxyard/upstreams', {
      upstream: { name: 'down', url: 'http://127.0.0.1:9/', token: secrets.upstreamToken, max_failures: 1 },
    });
    expect(up.status, up.text).toBe(201);
    const m = await http.post('/api/boxyard/mirrors', {
      mirror: { upstream_id: up.json.upstream.id, source: 'acme/elsewhere' },
    });
    expect(m.status, m.text).toBe(201);
    await waitForJob(http, m.json.job.id);
  });
  afterAll(async () => {
    await d?.kill();
    rmSync(data, { recursive: true, force: true });
  });

  it('names every request without its secrets', () => {
    const out = d.output();
    const requests = out
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l));
    const urls = requests.map((r) => `${r.req.method} ${r.req.url}`);
    expect(urls).toContain('PUT /uploads/[redacted]');
    expect(urls).toContain('GET /api/v1/box/acme/logged?access_token=[redacted]');
    expect(requests.find((r) => r.req.headers['x-atlas-token'])?.req.headers['x-atlas-token']).toBe('[redacted]');
    expect(requests.find((r) => r.req.headers['x-service-token'])?.req.headers['x-service-token']).toBe('[redacted]');
    expect(requests.find((r) => r.req.url === '/api/agent/register')?.req.headers.authorization).toBe('[redacted]');
    expect(requests.find((r) => r.res.status === 401)).toBeDefined();
  });

  it('holds none of the secrets anywhere', () => {
    const out = d.output();
    expect(Object.keys(secrets)).toHaveLength(6);
    for (const [what, secret] of Object.entries(secrets))
      expect(out.includes(secret), `${what} is in the log`).toBe(false);
  });
});
