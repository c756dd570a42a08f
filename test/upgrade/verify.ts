import { createHash } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { expect } from 'vitest';
import type { HttpClient } from '../helpers/http';
import { boxBytes, type Made, type MadeFile, type MadeUser } from './scenario';

/**
 * Checks, through today's daemon's API, everything an earlier build made (scenario.ts): every token still signs in
 * and the signed-out one does not, passwords and two-factor still work, the organization keeps its members, every
 * box, version and provider is there with its visibility, every file downloads with its checksum, the open upload
 * URL answers as its lifetime says, the pool keeps its agents and agent tokens, the workspace its settings, the
 * mirror its job and its box.
 */
export async function verifyMade(http: HttpClient, made: Made): Promise<void> {
  for (const user of [made.admin, ...made.users]) await verifyUser(http, user);
  if (made.organization) {
    const org = await http
      .withToken(made.users[0].tokens.laptop)
      .get(`/api/boxyard/organizations/${made.organization.name}`);
    expect(org.status, org.text).toBe(200);
    const members = Object.fromEntries(
      (org.json.organization.members as Array<{ username: string; role: string }>).map((m) => [m.username, m.role]),
    );
    expect(members).toEqual(made.organization.members);
  }
  await verifyBoxes(http, made);
  await verifyPool(http, made);
  await verifyMirror(http, made);
}

async function verifyUser(http: HttpClient, user: MadeUser): Promise<void> {
  for (const [description, token] of Object.entries(user.tokens)) {
    const me = await http.withToken(token).get('/api/boxyard/user');
    if (description === 'revoked') {
      expect(me.status, `${user.username}'s signed-out token`).toBe(401);
      continue;
    }
    expect(me.status, `${user.username}'s token "${description}": ${me.text}`).toBe(200);
    expect(me.json.user.username).toBe(user.username);
    if (user.email) expect(me.json.user.email).toBe(user.email);
  }
  const login = (code?: string) =>
    http.post('/api/v1/authenticate', {
      user: { login: user.username, password: user.password },
      ...(code ? { two_factor: { code } } : {}),
    });
  if (!user.totpSecret) {
    const r = await login();
    expect(r.status, `${user.username} signs in: ${r.text}`).toBe(200);
    return;
  }
  const without = await login();
  expect(without.status, `${user.username} without a code: ${without.text}`).toBe(406);
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(user.totpSecret) }).generate();
  const r = await login(code);
  expect(r.status, `${user.username} with a code: ${r.text}`).toBe(200);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function download(url: string, token?: string): Promise<Buffer> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status, `GET ${url}`).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function verifyBoxes(http: HttpClient, made: Made): Promise<void> {
  if (made.boxes.length === 0) return;
  const owner = made.users[0].tokens.laptop;
  const member = made.users[1].tokens.laptop;
  for (const box of made.boxes) {
    const anonymous = await http.get(`/api/v2/box/${box.tag}`);
    expect(anonymous.status, `${box.tag} to anyone`).toBe(box.private ? 404 : 200);
    for (const token of box.private ? [owner, member] : [owner]) {
      const r = await http.withToken(token).get(`/api/v2/box/${box.tag}`);
      expect(r.status, `${box.tag}: ${r.text}`).toBe(200);
      expect(r.json.private).toBe(box.private);
      expect(r.json.short_description).toBe(box.description);
      const versions = (r.json.versions as Array<{ version: string; status: string }>).map((v) => v.version).sort();
      expect(versions).toEqual([...box.versions].sort());
      for (const v of r.json.versions as Array<{ version: string; status: string }>) {
        expect(v.status, `${box.tag} ${v.version}`).toBe(box.released.includes(v.version) ? 'active' : 'unreleased');
      }
    }
  }
  for (const file of made.files) await verifyFile(http, file, owner);
  if (made.externalProvider) {
    const { box, version, provider, url } = made.externalProvider;
    const r = await http.get(`/api/v2/box/${box}/version/${version}/provider/${provider}/amd64`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.original_url ?? r.json.url).toBe(url);
  }
  if (made.openUpload) await verifyOpenUpload(http, made, owner);
}

async function verifyFile(http: HttpClient, file: MadeFile, owner: string): Promise<void> {
  const path = `/api/v2/box/${file.box}/version/${file.version}/provider/${file.provider}/${file.architecture}`;
  const p = await http.withToken(owner).get(path);
  expect(p.status, p.text).toBe(200);
  expect(p.json.hosted).toBe(true);
  expect(p.json.checksum).toBe(file.sha256);
  expect(await download(p.json.download_url, owner).then(sha256)).toBe(file.sha256);
  if (!file.released) return;
  // What `vagrant box add ORG/BOX` reads: the catalog, then the file it names.
  const catalog = await http.withToken(file.private ? owner : undefined).get(`/${file.box}`);
  expect(catalog.status, catalog.text).toBe(200);
  const version = catalog.json.versions.find((v: { version: string }) => v.version === file.version);
  const provider = version.providers.find((x: { name: string }) => x.name === file.provider);
  expect(provider.checksum).toBe(file.sha256);
  expect(await download(provider.url, file.private ? owner : undefined).then(sha256)).toBe(file.sha256);
  if (file.private) expect((await fetch(provider.url)).status).toBeGreaterThanOrEqual(401);
}

/**
 * The upload URL left open: still taken while its lifetime lasts (the file then downloads with its checksum), or,
 * past it, refused with nothing stored. Which one depends on the fixture's age, not on the upgrade.
 */
async function verifyOpenUpload(http: HttpClient, made: Made, owner: string): Promise<void> {
  const { box, version, provider, uploadPath } = present(made.openUpload);
  const bytes = boxBytes(`${box}/${version}/${provider}`);
  const put = await fetch(`${http.baseUrl}${new URL(uploadPath).pathname}`, { method: 'PUT', body: bytes });
  const p = await http.withToken(owner).get(`/api/v2/box/${box}/version/${version}/provider/${provider}/amd64`);
  expect(p.status, p.text).toBe(200);
  expect(p.json.checksum).toBe(sha256(bytes));
  // Builds before schema 010 did not record who made an upload URL: it is refused, since rights are checked at use.
  const refused = made.schema < '010' ? [403, 404] : [404];
  if (refused.includes(put.status)) {
    if (put.status === 403) expect(await put.text()).toContain('made by an earlier Boxyard');
    const file = await fetch(p.json.download_url, { headers: { authorization: `Bearer ${owner}` } });
    expect(file.status, 'nothing stored').toBe(404);
    return;
  }
  expect(put.status, await put.text()).toBe(200);
  expect(await download(p.json.download_url, owner).then(sha256)).toBe(sha256(bytes));
}

function present<T>(v: T | undefined): T {
  if (v === undefined) throw new Error('missing');
  return v;
}

async function verifyPool(http: HttpClient, made: Made): Promise<void> {
  if (!made.pool) return;
  const api = http.withToken(made.users[0].tokens.laptop).withContentType('application/vnd.api+json');
  // Every build gave organizations a pool limit of 1, which a lab never set: raised to today's default.
  const org = await api.get(`/api/v2/organizations/${made.pool.org}`);
  expect(org.json.data.attributes['agent-pool-limit']).toBe(100);
  const pool = await api.get(`/api/v2/agent-pools/${made.pool.id}`);
  expect(pool.status, pool.text).toBe(200);
  expect(pool.json.data.attributes.name).toBe(made.pool.name);
  const agents = await api.get(`/api/v2/agent-pools/${made.pool.id}/agents`);
  expect(agents.status, agents.text).toBe(200);
  expect((agents.json.data as Array<{ id: string }>).map((a) => a.id).sort()).toEqual([...made.pool.agents].sort());
  const tokens = await api.get(`/api/v2/agent-pools/${made.pool.id}/authentication-tokens`);
  expect(tokens.status, tokens.text).toBe(200);
  const descriptions = (tokens.json.data as Array<{ attributes: { description: string } }>).map(
    (t) => t.attributes.description,
  );
  expect(descriptions.sort()).toEqual(Object.keys(made.pool.agentTokens).sort());
  // An agent made before reports to its id; the other token still registers a new one.
  const rack1 = http.withToken(made.pool.agentTokens['rack-1']);
  const report = await rack1.post(`/api/agent/agents/${made.pool.agents[0]}/status`, { status: 'busy' });
  expect(report.status, report.text).toBe(200);
  const reg = await http.withToken(made.pool.agentTokens['rack-2']).post('/api/agent/register', { name: 'after' });
  expect(reg.status, reg.text).toBe(201);
  if (made.workspace) {
    const ws = await api.get(`/api/v2/workspaces/${made.workspace.id}`);
    expect(ws.status, ws.text).toBe(200);
    expect(ws.json.data.attributes).toMatchObject({
      name: made.workspace.name,
      'execution-mode': made.workspace.executionMode,
    });
    // A build before schema 005 kept no such setting (its answer had none): today's default.
    expect(ws.json.data.attributes['auto-apply']).toBe(made.workspace.autoApply ?? false);
    expect(ws.json.data.relationships['agent-pool'].data.id).toBe(made.workspace.poolId);
  }
}

async function verifyMirror(http: HttpClient, made: Made): Promise<void> {
  if (!made.mirror) return;
  const admin = http.withToken(made.admin.tokens.admin);
  const mirror = await admin.get(`/api/boxyard/mirrors/${made.mirror.id}`);
  expect(mirror.status, mirror.text).toBe(200);
  expect(mirror.json.mirror).toMatchObject({ source: made.mirror.source, target: made.mirror.target });
  const job = await admin.get(`/api/boxyard/mirror-jobs/${made.mirror.jobId}`);
  expect(job.status, job.text).toBe(200);
  expect(job.json.job.state).toBe('done');
  const catalog = await http.get(`/${made.mirror.target}`);
  expect(catalog.status, catalog.text).toBe(200);
  expect(catalog.json.versions.map((v: { version: string }) => v.version)).toEqual(made.mirror.versions);
  const file = await download(catalog.json.versions[0].providers[0].url);
  expect(sha256(file)).toBe(made.mirror.sha256);
}
