import { createHash } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import type { HttpClient } from '../helpers/http';
import { doc } from '../helpers/agents';
import { rawPut } from '../helpers/upload';

/**
 * What a lab makes with Boxyard, made through a daemon's API the way users make it: accounts with tokens and
 * two-factor, an organization with a member, public and private boxes with hosted files, an upload URL left open,
 * an agent pool with agent tokens and agents, a workspace on the pool, and a mirror with its job. Run by
 * make-fixtures.ts against each earlier build; what a build could not make is left out of the record and said in
 * `missing`, so verify.ts checks everything each build made, and nothing it could not.
 */

export interface MadeUser {
  username: string;
  password: string;
  email: string;
  /** Tokens by description, as made (the secret is shown once). */
  tokens: Record<string, string>;
  totpSecret?: string;
}

export interface MadeFile {
  box: string;
  version: string;
  provider: string;
  architecture: string;
  sha256: string;
  size: number;
  private: boolean;
  released: boolean;
}

export interface Made {
  /** The build that made it (git commit) and the last migration it ran. */
  build: string;
  schema: string;
  admin: MadeUser;
  users: MadeUser[];
  organization?: { name: string; members: Record<string, string> };
  boxes: Array<{ tag: string; private: boolean; description: string; versions: string[]; released: string[] }>;
  files: MadeFile[];
  externalProvider?: { box: string; version: string; provider: string; url: string };
  openUpload?: { box: string; version: string; provider: string; uploadPath: string };
  pool?: { org: string; id: string; name: string; agentTokens: Record<string, string>; agents: string[] };
  workspace?: { org: string; id: string; name: string; executionMode: string; poolId: string; autoApply?: boolean };
  mirror?: { id: string; source: string; target: string; jobId: string; versions: string[]; sha256: string };
  /** Steps this build could not take, with its answer. */
  missing: Record<string, string>;
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A box file's bytes: a fixed pattern per name, so a fixture is the same each time it is made. */
export function boxBytes(name: string, size = 4096): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(name).digest();
  for (let at = 0; at < size; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

class Refused extends Error {}

function ok(r: { status: number; text: string }, what: string, ...statuses: number[]): void {
  if (!statuses.includes(r.status)) throw new Refused(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

export interface ScenarioOptions {
  http: HttpClient;
  admin: { username: string; password: string };
  build: string;
  schema: string;
  /** A catalog upstream on 127.0.0.1 serving `acme/base` (make-fixtures.ts starts it), or none. */
  upstreamUrl?: string;
}

export async function makeScenario(o: ScenarioOptions): Promise<Made> {
  const { http } = o;
  const made: Made = {
    build: o.build,
    schema: o.schema,
    admin: { ...o.admin, email: '', tokens: {} },
    users: [],
    boxes: [],
    files: [],
    missing: {},
  };
  const step = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      made.missing[name] = err.message;
    }
  };
  const login = async (user: string, password: string, description: string, code?: string) => {
    const r = await http.post('/api/v1/authenticate', {
      user: { login: user, password },
      token: { description },
      ...(code ? { two_factor: { code } } : {}),
    });
    ok(r, `login ${user}`, 200);
    return r.json.token as string;
  };
  made.admin.tokens.admin = await login(o.admin.username, o.admin.password, 'admin');
  const admin = http.withToken(made.admin.tokens.admin);

  for (const username of ['alice', 'bob']) {
    const user: MadeUser = {
      username,
      password: `${username}-long-password-1`,
      email: `${username}@lab.example`,
      tokens: {},
    };
    const r = await admin.post('/api/boxyard/users', {
      user: { username, password: user.password, email: user.email },
    });
    ok(r, `create ${username}`, 200, 201);
    user.tokens.laptop = await login(username, user.password, `${username} laptop`);
    await step(`${username}: a second token`, async () => {
      const t = await http.withToken(user.tokens.laptop).post('/api/boxyard/tokens', { token: { description: 'ci' } });
      ok(t, 'token', 200, 201);
      user.tokens.ci = t.json.token.token ?? t.json.token;
    });
    made.users.push(user);
  }
  const [alice, bob] = made.users;
  const asAlice = http.withToken(alice.tokens.laptop);

  await step('two-factor', async () => {
    const begun = await asAlice.post('/api/boxyard/two-factor/totp', {});
    ok(begun, 'begin totp', 200, 201);
    const secret = begun.json.two_factor.secret as string;
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();
    const confirmed = await asAlice.post('/api/boxyard/two-factor/totp/confirm', {
      two_factor: { code },
      code,
      current_password: alice.password,
    });
    ok(confirmed, 'confirm totp', 200, 201, 204);
    alice.totpSecret = secret;
  });

  await step('organization', async () => {
    ok(await asAlice.post('/api/boxyard/organizations', { organization: { name: 'lab' } }), 'org', 200, 201);
    made.organization = { name: 'lab', members: { alice: 'owner' } };
    const m = await asAlice.put('/api/boxyard/organizations/lab/members/bob', { member: { role: 'member' } });
    ok(m, 'member', 200, 201, 204);
    made.organization.members.bob = 'member';
  });

  await step('boxes', () => makeBoxes(made, asAlice));
  await step('agent pool', () => makePool(o, made, asAlice));
  if (o.upstreamUrl) await step('mirror', () => makeMirror(o, made, admin));
  // Bob signs in and out again: a token deleted is gone after the upgrade too.
  await step('signed out token', async () => {
    const t = await login('bob', bob.password, 'bob gone');
    ok(await http.withToken(t).delete('/api/v1/authenticate'), 'sign out', 200, 204);
    bob.tokens.revoked = t;
  });
  return made;
}

async function makeBoxes(made: Made, asAlice: HttpClient): Promise<void> {
  const box = async (owner: string, name: string, isPrivate: boolean) => {
    const description = `${name} of ${owner}`;
    const r = await asAlice.post('/api/v1/boxes', {
      box: { username: owner, name, is_private: isPrivate, short_description: description },
    });
    ok(r, `box ${owner}/${name}`, 200, 201);
    const entry = { tag: `${owner}/${name}`, private: isPrivate, description, versions: [], released: [] };
    made.boxes.push(entry);
    return entry as Made['boxes'][number];
  };
  const version = async (b: Made['boxes'][number], v: string) => {
    ok(await asAlice.post(`/api/v1/box/${b.tag}/versions`, { version: { version: v } }), `version ${v}`, 200, 201);
    b.versions.push(v);
  };
  const provider = async (b: Made['boxes'][number], v: string, name: string, url?: string) => {
    const checksum = url ? {} : { checksum_type: 'sha256', checksum: sha256(boxBytes(`${b.tag}/${v}/${name}`)) };
    const body = { provider: { name, architecture: 'amd64', url: url ?? null, ...checksum } };
    ok(await asAlice.post(`/api/v1/box/${b.tag}/version/${v}/providers`, body), `provider ${name}`, 200, 201);
  };
  const upload = async (b: Made['boxes'][number], v: string, name: string) => {
    const bytes = boxBytes(`${b.tag}/${v}/${name}`);
    const prep = await asAlice.get(`/api/v1/box/${b.tag}/version/${v}/provider/${name}/amd64/upload`);
    ok(prep, 'upload URL', 200);
    const put = await rawPut(prep.json.upload_path, bytes, { 'content-length': String(bytes.length) });
    if (put.status !== 200) throw new Refused(`upload: ${put.status}`);
    made.files.push({
      box: b.tag,
      version: v,
      provider: name,
      architecture: 'amd64',
      sha256: sha256(bytes),
      size: bytes.length,
      private: b.private,
      released: false,
    });
  };
  const release = async (b: Made['boxes'][number], v: string) => {
    ok(await asAlice.put(`/api/v1/box/${b.tag}/version/${v}/release`), `release ${v}`, 200);
    b.released.push(v);
    for (const f of made.files) if (f.box === b.tag && f.version === v) f.released = true;
  };

  const web = await box('alice', 'web', false);
  for (const v of ['1.0.0', '1.1.0']) {
    await version(web, v);
    await provider(web, v, 'virtualbox');
    await upload(web, v, 'virtualbox');
  }
  await release(web, '1.0.0');
  await provider(web, '1.0.0', 'vmware_desktop', 'https://boxes.lab.example/web-1.0.0-vmware.box');
  made.externalProvider = {
    box: web.tag,
    version: '1.0.0',
    provider: 'vmware_desktop',
    url: 'https://boxes.lab.example/web-1.0.0-vmware.box',
  };
  // An upload URL asked for and never used: the upgrade keeps it, and it still answers as its lifetime says.
  await provider(web, '1.1.0', 'libvirt');
  const open = await asAlice.get(`/api/v1/box/${web.tag}/version/1.1.0/provider/libvirt/amd64/upload`);
  ok(open, 'open upload URL', 200);
  made.openUpload = { box: web.tag, version: '1.1.0', provider: 'libvirt', uploadPath: open.json.upload_path };

  if (made.organization) {
    const secret = await box('lab', 'secret', true);
    await version(secret, '2.0.0');
    await provider(secret, '2.0.0', 'virtualbox');
    await upload(secret, '2.0.0', 'virtualbox');
    await release(secret, '2.0.0');
  }
}

async function makePool(o: ScenarioOptions, made: Made, asAlice: HttpClient): Promise<void> {
  if (!made.organization) throw new Refused('no organization');
  const api = asAlice.withContentType('application/vnd.api+json');
  const org = made.organization.name;
  if ((await api.get(`/api/v2/organizations/${org}`)).status === 404) {
    ok(
      await api.post('/api/v2/organizations', doc('organizations', { name: org, email: 'lab@lab.example' })),
      'tfe org',
      201,
    );
  }
  const pool = await api.post(`/api/v2/organizations/${org}/agent-pools`, doc('agent-pools', { name: 'builders' }));
  ok(pool, 'pool', 201);
  const id = pool.json.data.id as string;
  made.pool = { org, id, name: 'builders', agentTokens: {}, agents: [] };
  for (const description of ['rack-1', 'rack-2']) {
    const t = await api.post(
      `/api/v2/agent-pools/${id}/authentication-tokens`,
      doc('authentication-tokens', { description }),
    );
    ok(t, 'agent token', 201);
    made.pool.agentTokens[description] = t.json.data.attributes.token;
  }
  for (const name of ['builder-a', 'builder-b']) {
    const agent = o.http.withToken(made.pool.agentTokens['rack-1']);
    const reg = await agent.post('/api/agent/register', { name });
    ok(reg, 'register', 200, 201);
    const agentId = reg.json.agent.id as string;
    ok(await agent.post(`/api/agent/agents/${agentId}/status`, { status: 'idle' }), 'report', 200);
    made.pool.agents.push(agentId);
  }
  const ws = await api.post(
    `/api/v2/organizations/${org}/workspaces`,
    doc(
      'workspaces',
      { name: 'infra', 'execution-mode': 'agent', 'auto-apply': true },
      { 'agent-pool': { data: { type: 'agent-pools', id } } },
    ),
  );
  ok(ws, 'workspace', 201);
  // As the build answered: one that did not keep a setting yet says so.
  const attributes = ws.json.data.attributes;
  made.workspace = {
    org,
    id: ws.json.data.id,
    name: attributes.name,
    executionMode: attributes['execution-mode'],
    poolId: ws.json.data.relationships['agent-pool'].data.id,
    autoApply: attributes['auto-apply'],
  };
}

async function makeMirror(o: ScenarioOptions, made: Made, admin: HttpClient): Promise<void> {
  const created = await admin.post('/api/boxyard/mirrors', {
    mirror: { upstream: { url: o.upstreamUrl }, source: 'acme/base', target: 'admin/base', run: true },
  });
  ok(created, 'mirror', 201);
  const jobId = created.json.job.id as string;
  for (const until = Date.now() + 30_000; ; ) {
    const j = await admin.get(`/api/boxyard/mirror-jobs/${jobId}`);
    ok(j, 'job', 200);
    if (j.json.job.state === 'done') break;
    if (j.json.job.state !== 'running' && j.json.job.state !== 'queued') throw new Refused(`job ${j.text}`);
    if (Date.now() > until) throw new Refused(`job still ${j.json.job.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  made.mirror = {
    id: created.json.mirror.id,
    source: 'acme/base',
    target: 'admin/base',
    jobId,
    versions: ['3.0.0'],
    sha256: sha256(boxBytes('acme/base/3.0.0')),
  };
}
