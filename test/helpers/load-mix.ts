import { createHash, randomBytes } from 'node:crypto';
import type { ParsedJson } from './http';

/**
 * Many clients at once against one daemon, mixing what a lab does all day: box downloads, search,
 * box pages, uploads of new versions, logins and agent reports, while others release and delete
 * one version concurrently. Every answer is checked as it comes, and the end state after: the
 * download counters add up (no lost update), every uploaded version is there with its checksum,
 * every agent shows its last report, and the raced version is either released and downloadable
 * or gone. Used by test/system/load.test.ts (bounded by operations) and bench/load.ts (bounded by time).
 */
export const OPS = ['download', 'search', 'box', 'upload', 'report', 'login', 'race'] as const;
export type Op = (typeof OPS)[number];

export interface LoadPlan {
  clients: number;
  /** Each client stops after this many operations … */
  opsPerClient?: number;
  /** … or at this time (ms since the epoch), whichever comes first. */
  until?: number;
  /** Bytes of each box file uploaded. */
  fileBytes: number;
  admin: { username: string; password: string; token: string };
}

export interface LoadReport {
  ops: Record<Op, { ok: number; failed: number; ms: number[] }>;
  /** The first failed answers, in words. */
  failures: string[];
  /** What the end state got wrong. */
  problems: string[];
  /** How the release/delete race ended. */
  race: 'released' | 'deleted' | 'inconsistent';
}

const WEIGHTS: Array<[Op, number]> = [
  ['download', 30],
  ['search', 12],
  ['box', 10],
  ['upload', 12],
  ['report', 26],
  ['login', 4],
  ['race', 6],
];
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const DOWNLOAD_BOXES = 4;

/** The operation a draw in [0, 100) falls on, the weights laid end to end. */
function pickWeighted(draw: number): Op {
  let left = draw;
  for (const [op, w] of WEIGHTS) {
    left -= w;
    if (left < 0) return op;
  }
  return 'download';
}

/** A small seeded generator, so a run's mix of operations can be repeated. */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

class Api {
  constructor(readonly base: string) {}
  async call(
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; raw?: Uint8Array; type?: string } = {},
  ) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined || opts.raw) headers['content-type'] = opts.type ?? 'application/json';
    const res = await fetch(path.startsWith('http') ? path : this.base + path, {
      method,
      headers,
      body: (opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))) as RequestInit['body'],
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    let json: ParsedJson;
    try {
      json = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, json, bytes };
  }
}

const JSONAPI = 'application/vnd.api+json';

/** Box → version → hosted provider with an uploaded file; released unless told otherwise. */
async function hostedVersion(api: Api, token: string, box: string, version: string, file: Uint8Array, release = true) {
  const path = `/api/v1/box/${box}`;
  const steps = [
    await api.call('POST', `${path}/versions`, { token, body: { version: { version } } }),
    await api.call('POST', `${path}/version/${version}/providers`, {
      token,
      body: { provider: { name: 'virtualbox' } },
    }),
  ];
  const up = await api.call('GET', `${path}/version/${version}/provider/virtualbox/upload`, { token });
  steps.push(
    up,
    await api.call('PUT', up.json?.upload_path ?? `${path}/no-upload-path`, {
      raw: file,
      type: 'application/octet-stream',
    }),
  );
  if (release) steps.push(await api.call('PUT', `${path}/version/${version}/release`, { token }));
  const bad = steps.find((s) => s.status !== 200);
  if (bad) throw new Error(`publishing ${box} ${version}: ${bad.status} ${JSON.stringify(bad.json)}`);
  const shown = await api.call('GET', `${path}/version/${version}/provider/virtualbox`, { token });
  return { downloadUrl: shown.json.download_url as string, checksum: shown.json.checksum as string };
}

export async function runLoadMix(baseUrl: string, plan: LoadPlan): Promise<LoadReport> {
  const api = new Api(baseUrl);
  const { token, username } = plan.admin;
  const file = () => randomBytes(plan.fileBytes);

  // Setup: boxes to download, one box per client to upload to, a version to race over, agents.
  const dl: Array<{ box: string; url: string; sum: string; expected: number }> = [];
  for (let k = 0; k < DOWNLOAD_BOXES; k++) {
    const box = `${username}/load-dl-${k}`;
    await api.call('POST', '/api/v1/boxes', {
      token,
      body: { box: { username, name: `load-dl-${k}`, is_private: false } },
    });
    const f = file();
    const v = await hostedVersion(api, token, box, '1.0.0', f);
    dl.push({ box, url: v.downloadUrl, sum: sha256(f), expected: 0 });
  }
  for (let c = 0; c < plan.clients; c++)
    await api.call('POST', '/api/v1/boxes', {
      token,
      body: { box: { username, name: `load-up-${c}`, is_private: false } },
    });
  await api.call('POST', '/api/v1/boxes', { token, body: { box: { username, name: 'load-race', is_private: false } } });
  const raceFile = file();
  const race = await hostedVersion(api, token, `${username}/load-race`, '2.0.0', raceFile, false);
  const org = await api.call('POST', '/api/v2/organizations', {
    token,
    body: { data: { type: 'organizations', attributes: { name: 'load-org', email: 'load@example.com' } } },
    type: JSONAPI,
  });
  const pool = await api.call('POST', '/api/v2/organizations/load-org/agent-pools', {
    token,
    body: { data: { type: 'agent-pools', attributes: { name: 'load-pool' } } },
    type: JSONAPI,
  });
  const agentToken = (
    await api.call('POST', `/api/v2/agent-pools/${pool.json?.data?.id}/authentication-tokens`, {
      token,
      body: { data: { type: 'authentication-tokens', attributes: { description: 'load' } } },
      type: JSONAPI,
    })
  ).json?.data?.attributes?.token;
  if (org.status !== 201 || pool.status !== 201 || !agentToken)
    throw new Error(`agent setup failed: ${org.status} ${pool.status}`);
  const agents: Array<{ id: string; last: string }> = [];
  for (let c = 0; c < plan.clients; c++) {
    const r = await api.call('POST', '/api/agent/register', { token: agentToken, body: { name: `load-agent-${c}` } });
    if (r.status !== 201) throw new Error(`agent registration failed: ${r.status}`);
    agents.push({ id: r.json.agent.id, last: 'idle' });
  }

  const report: LoadReport = {
    ops: Object.fromEntries(OPS.map((o) => [o, { ok: 0, failed: 0, ms: [] as number[] }])) as LoadReport['ops'],
    failures: [],
    problems: [],
    race: 'inconsistent',
  };
  const uploaded: Array<Map<string, string>> = Array.from({ length: plan.clients }, () => new Map());

  /** One operation; returns what was wrong with its answers, or null. */
  const operate = async (op: Op, c: number, n: number, rnd: () => number): Promise<string | null> => {
    switch (op) {
      case 'download': {
        const d = dl[Math.floor(rnd() * dl.length)];
        const r = await api.call('GET', d.url);
        if (r.status !== 200 || sha256(r.bytes) !== d.sum) return `GET ${d.url}: ${r.status}, ${r.bytes.length} bytes`;
        d.expected++;
        return null;
      }
      case 'search': {
        const r = await api.call('GET', '/api/v1/search?q=load-dl&limit=10', { token });
        return r.status === 200 && r.json.boxes.length === DOWNLOAD_BOXES
          ? null
          : `search: ${r.status} ${r.json?.boxes?.length} hits`;
      }
      case 'box': {
        const d = dl[Math.floor(rnd() * dl.length)];
        const r = await api.call('GET', `/api/v1/box/${d.box}`, { token });
        return r.status === 200 && r.json.versions?.[0]?.version === '1.0.0' ? null : `box ${d.box}: ${r.status}`;
      }
      case 'upload': {
        const f = file();
        const version = `1.${c}.${n}`;
        const v = await hostedVersion(api, token, `${username}/load-up-${c}`, version, f);
        if (v.checksum !== sha256(f)) return `upload ${version}: checksum ${v.checksum}`;
        uploaded[c].set(version, v.checksum);
        return null;
      }
      case 'report': {
        const status = rnd() < 0.5 ? 'idle' : 'busy';
        const r = await api.call('POST', `/api/agent/agents/${agents[c].id}/status`, {
          token: agentToken,
          body: { status },
        });
        if (r.status !== 200) return `report: ${r.status} ${JSON.stringify(r.json)}`;
        agents[c].last = status;
        return null;
      }
      case 'login': {
        const r = await api.call('POST', '/api/v1/authenticate', {
          body: { user: { login: username, password: plan.admin.password } },
        });
        if (r.status !== 200 || !r.json?.token) return `login: ${r.status} ${JSON.stringify(r.json)}`;
        const out = await api.call('DELETE', '/api/v1/authenticate', { token: r.json.token });
        return out.status < 300 ? null : `logout: ${out.status}`;
      }
      case 'race': {
        const path = `/api/v1/box/${username}/load-race/version/2.0.0`;
        const r =
          rnd() < 0.6 ? await api.call('PUT', `${path}/release`, { token }) : await api.call('DELETE', path, { token });
        // Either wins; the loser is told in words (404 once deleted, 4xx for a repeated release), never a 5xx.
        return r.status < 500 && r.status !== 401 && r.status !== 403
          ? null
          : `race: ${r.status} ${JSON.stringify(r.json)}`;
      }
    }
  };

  const runClient = async (c: number) => {
    const rnd = prng(c + 1);
    for (
      let n = 0;
      (plan.opsPerClient === undefined || n < plan.opsPerClient) &&
      (plan.until === undefined || Date.now() < plan.until);
      n++
    ) {
      const op = pickWeighted(rnd() * 100);
      const t0 = performance.now();
      const wrong = await operate(op, c, n, rnd).catch((err: unknown) => `${op}: ${String(err)}`);
      const stat = report.ops[op];
      stat.ms.push(performance.now() - t0);
      if (wrong) {
        stat.failed++;
        if (report.failures.length < 20) report.failures.push(wrong);
      } else stat.ok++;
    }
  };
  await Promise.all(Array.from({ length: plan.clients }, (_, c) => runClient(c)));

  await checkEndState(api, token, username, { dl, uploaded, agents, race, raceSum: sha256(raceFile) }, report);
  return report;
}

async function checkEndState(
  api: Api,
  token: string,
  username: string,
  s: {
    dl: Array<{ box: string; expected: number }>;
    uploaded: Array<Map<string, string>>;
    agents: Array<{ id: string; last: string }>;
    race: { downloadUrl: string };
    raceSum: string;
  },
  report: LoadReport,
): Promise<void> {
  const problems = report.problems;
  for (const d of s.dl) {
    // A download is counted once its last byte is sent, just after the client has it all.
    let seen = -1;
    for (let i = 0; i < 100 && seen !== d.expected; i++) {
      seen = (await api.call('GET', `/api/v1/box/${d.box}`, { token })).json?.downloads;
      if (seen !== d.expected) await new Promise((r) => setTimeout(r, 20));
    }
    if (seen !== d.expected) problems.push(`${d.box}: ${seen} downloads counted, ${d.expected} made`);
  }
  for (const [c, versions] of s.uploaded.entries()) {
    const box = (await api.call('GET', `/api/v1/box/${username}/load-up-${c}`, { token })).json;
    const shown = new Map<string, string>(
      (box?.versions ?? []).map((v: { version: string; providers: Array<{ checksum: string }> }) => [
        v.version,
        v.providers[0]?.checksum,
      ]),
    );
    for (const [v, sum] of versions)
      if (shown.get(v) !== sum) problems.push(`load-up-${c} ${v}: checksum ${shown.get(v)}, uploaded ${sum}`);
    if (shown.size !== versions.size)
      problems.push(`load-up-${c}: ${shown.size} versions shown, ${versions.size} uploaded`);
  }
  for (const a of s.agents) {
    const r = await api.call('GET', `/api/v2/agents/${a.id}`, { token });
    if (r.json?.data?.attributes?.status !== a.last)
      problems.push(`agent ${a.id}: ${r.json?.data?.attributes?.status}, last reported ${a.last}`);
  }
  const version = await api.call('GET', `/api/v1/box/${username}/load-race/version/2.0.0`, { token });
  const file = await api.call('GET', s.race.downloadUrl);
  if (version.status === 404 && file.status === 404) report.race = 'deleted';
  else if (
    version.status === 200 &&
    version.json.status === 'active' &&
    file.status === 200 &&
    sha256(file.bytes) === s.raceSum
  )
    report.race = 'released';
  else problems.push(`raced version: ${version.status} ${version.json?.status}, its file ${file.status}`);
}
