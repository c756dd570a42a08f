import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HttpClient, HttpResponse } from './http';

/** Helpers for the agent-pools API tests (test/agents/, test/pools/, test/workspaces/, test/orgs/tfe-api.test.ts). */
export const JSONAPI = 'application/vnd.api+json';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Attrs = Record<string, unknown>;
type Rels = Record<string, unknown>;

export const doc = (type: string, attributes: Attrs = {}, relationships?: Rels) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});
export const refs = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });
/** The ids of a relationship's data. */
export const ids = (rel: { data: Array<{ id: string }> }) => rel.data.map((x) => x.id);
/** A query string with percent-encoded keys and values, as go-querystring sends `filter[…]` and `page[…]`. */
export const query = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

async function created(r: Promise<HttpResponse>, what: string) {
  const res = await r;
  if (res.status !== 201) throw new Error(`creating ${what} failed: ${res.status} ${res.text}`);
  return res.json.data;
}

export const createOrg = (api: HttpClient, name: string, attrs: Attrs = {}) =>
  created(
    api.post('/api/v2/organizations', doc('organizations', { name, email: `${name}@example.com`, ...attrs })),
    `organization ${name}`,
  );
export const createPool = (api: HttpClient, org: string, name: string, attrs: Attrs = {}, rels?: Rels) =>
  created(
    api.post(`/api/v2/organizations/${org}/agent-pools`, doc('agent-pools', { name, ...attrs }, rels)),
    `pool ${name}`,
  );
export const createWorkspace = (api: HttpClient, org: string, name: string, attrs: Attrs = {}, rels?: Rels) =>
  created(
    api.post(`/api/v2/organizations/${org}/workspaces`, doc('workspaces', { name, ...attrs }, rels)),
    `workspace ${name}`,
  );
export const createProject = (api: HttpClient, org: string, name: string) =>
  created(api.post(`/api/v2/organizations/${org}/projects`, doc('projects', { name })), `project ${name}`);
export async function createAgentToken(
  api: HttpClient,
  poolId: string,
  description = 'test',
): Promise<{ id: string; token: string }> {
  const data = await created(
    api.post(`/api/v2/agent-pools/${poolId}/authentication-tokens`, doc('authentication-tokens', { description })),
    'agent token',
  );
  return { id: data.id, token: data.attributes.token };
}

/** Lets an organization hold more pools than the default of one (an owner's PATCH). */
export async function setPoolLimit(api: HttpClient, org: string, limit: number): Promise<void> {
  const r = await api.patch(`/api/v2/organizations/${org}`, doc('organizations', { 'agent-pool-limit': limit }));
  if (r.status !== 200) throw new Error(`raising the pool limit failed: ${r.status} ${r.text}`);
}

export interface AgentProcess {
  proc: ChildProcess;
  output(): string;
  /** Resolves when the output matches, rejects after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Starts a real `boxyard agent` process (node bin/boxyard.mjs agent …). */
export function spawnAgent(url: string, token: string, name: string, extra: string[] = []): AgentProcess {
  const proc = spawn(process.execPath, ['bin/boxyard.mjs', 'agent', '--url', url, '--name', name, ...extra], {
    cwd: ROOT,
    env: { ...process.env, BOXYARD_AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const l of listeners) l();
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      for (const l of listeners) l();
      resolve(code);
    }),
  );
  return {
    proc,
    output: () => out,
    exited,
    waitFor(re, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) {
            done();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${re} in agent output:\n${out}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Polls until `fn` returns a truthy value (for state that real processes change). */
export async function eventually<T>(fn: () => Promise<T>, ms = 20_000, every = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, every));
  }
}
