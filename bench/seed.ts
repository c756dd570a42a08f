/**
 * The benchmark's large database: 10,000 public boxes × 10 released versions (one provider each,
 * with an external url) spread over a few organizations, and 1,000 agents in one pool.
 *
 * Accounts, organizations, the pool, its agent token and the agents go through the daemon's own
 * HTTP API (a daemon is started on the fresh folder, agents register with the agent protocol);
 * the boxes, versions and providers are then written straight into SQLite in one transaction with
 * prepared statements, after the daemon's own migrations (store/db.ts openStore). If a migration
 * ever adds a table the application (not a trigger) keeps in step with boxes, fill it here too:
 * api.ts checks the answers look right and fails loudly otherwise.
 *
 *   npx tsx bench/seed.ts DIR     # seeds DIR and prints the seed as JSON (for profiling by hand)
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import pg from 'pg';
import { openStore } from '../daemon/src/store/db';
import { adminToken, api, startDaemon } from './measure';

export interface Seed {
  dataDir: string;
  /** An administrator's API token. */
  token: string;
  orgs: string[];
  /** A box in the middle of the table, for the catalog and box endpoints. */
  org: string;
  box: string;
  poolId: string;
  agentToken: string;
  agentIds: string[];
  boxes: number;
  versions: number;
  /** PostgreSQL instead of the data folder's SQLite (the scale-out part). */
  database?: string;
}

/** What a daemon on the seed needs besides its data folder. */
export const seedEnv = (s: Pick<Seed, 'database'>): Record<string, string> =>
  s.database ? { BOXYARD_DATABASE_URL: s.database } : {};

const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Ids shaped like the daemon's (`prefix-` and 16 random characters). */
const id = (prefix: string) => `${prefix}-${[...randomBytes(16)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;

async function register(url: string, agentToken: string, n: number): Promise<string[]> {
  const ids: string[] = new Array(n);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const r = await api<{ agent: { id: string } }>(url, 'POST', '/api/agent/register', {
        token: agentToken,
        body: { name: `agent-${i}` },
      });
      ids[i] = r.agent.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** Accounts and agents through the running daemon's API. */
async function viaApi(dataDir: string, nOrgs: number, nAgents: number, env: Record<string, string>) {
  const daemon = await startDaemon(dataDir, { env });
  try {
    const token = await adminToken(daemon.url);
    const orgs = Array.from({ length: nOrgs }, (_, k) => `org-${k}`);
    for (const name of orgs) {
      await api(daemon.url, 'POST', '/api/v2/organizations', {
        token,
        jsonapi: true,
        body: { data: { type: 'organizations', attributes: { name, email: `${name}@example.com` } } },
      });
    }
    const pool = await api<{ data: { id: string } }>(
      daemon.url,
      'POST',
      `/api/v2/organizations/${orgs[0]}/agent-pools`,
      {
        token,
        jsonapi: true,
        body: { data: { type: 'agent-pools', attributes: { name: 'bench-pool' } } },
      },
    );
    const poolId = pool.data.id;
    const at = await api<{ data: { attributes: { token: string } } }>(
      daemon.url,
      'POST',
      `/api/v2/agent-pools/${poolId}/authentication-tokens`,
      {
        token,
        jsonapi: true,
        body: { data: { type: 'authentication-tokens', attributes: { description: 'bench' } } },
      },
    );
    const agentToken = at.data.attributes.token;
    const agentIds = await register(daemon.url, agentToken, nAgents);
    return { token, orgs, poolId, agentToken, agentIds };
  } catch (err) {
    // An internal error's details are in the daemon's log, which goes with it.
    throw new Error(`${String(err)}\ndaemon log:\n${daemon.output().slice(-4000)}`);
  } finally {
    await daemon.stop();
  }
}

interface Rows {
  box(row: unknown[]): void;
  version(row: unknown[]): void;
  provider(row: unknown[]): void;
}

const BOX_COLUMNS =
  'id, organization_id, name, name_key, short_description, description, private, downloads, created_at, updated_at';
const VERSION_COLUMNS = 'id, box_id, version, description, status, created_at, updated_at';
const PROVIDER_COLUMNS =
  'id, version_id, name, architecture, default_architecture, url, checksum, checksum_type, size, created_at, updated_at';

/** Every box, version and provider of the large database, in insertion order. */
function eachRow(orgId: Map<string, string>, orgNames: string[], nBoxes: number, nVersions: number, out: Rows): void {
  const start = Date.parse('2025-01-01T00:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  for (let i = 0; i < nBoxes; i++) {
    const org = orgNames[i % orgNames.length];
    const name = `box-${i}`;
    const boxId = id('box');
    const created = start + i * 60_000;
    // Spread, not ordered like the ids: sorting by downloads or update time must really sort.
    const downloads = (i * 7919) % 100_003;
    const updated = created + ((i * 104_729) % 1_000_000) * 1_000;
    out.box([
      boxId,
      orgId.get(org),
      name,
      name,
      `Benchmark box ${i}`,
      `# ${name}\n\nA box of the benchmark database, number ${i}, with a description of a realistic length for a catalog page.`,
      0,
      downloads,
      iso(created),
      iso(updated),
    ]);
    for (let j = 0; j < nVersions; j++) {
      const v = `1.${j}.0`;
      const versionId = id('ver');
      const at = iso(created + j * 3_600_000);
      out.version([versionId, boxId, v, `Release ${v} of ${name}.`, 'active', at, at]);
      const checksum = createHash('sha256').update(`${name}/${v}`).digest('hex');
      out.provider([
        id('prov'),
        versionId,
        'virtualbox',
        'amd64',
        1,
        `https://boxes.example.invalid/${org}/${name}/${v}/virtualbox.box`,
        checksum,
        'sha256',
        1_000_000_000 + i,
        at,
        at,
      ]);
    }
  }
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Boxes, versions and providers straight into SQLite, in one transaction. */
function viaSql(dbFile: string, orgNames: string[], nBoxes: number, nVersions: number): void {
  const store = openStore(dbFile);
  const db = store.raw;
  try {
    const orgId = new Map(
      (db.prepare('SELECT name, id FROM organizations').all() as Array<{ name: string; id: string }>).map((r) => [
        r.name,
        r.id,
      ]),
    );
    const insBox = db.prepare(`INSERT INTO boxes (${BOX_COLUMNS}) VALUES (${marks(10)})`);
    const insVersion = db.prepare(`INSERT INTO box_versions (${VERSION_COLUMNS}) VALUES (${marks(7)})`);
    const insProvider = db.prepare(`INSERT INTO box_providers (${PROVIDER_COLUMNS}) VALUES (${marks(11)})`);
    db.transaction(() =>
      eachRow(orgId, orgNames, nBoxes, nVersions, {
        box: (r) => insBox.run(r),
        version: (r) => insVersion.run(r),
        provider: (r) => insProvider.run(r),
      }),
    )();
    // A database the daemon wrote itself would have been checkpointed long ago.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/**
 * The same rows into PostgreSQL, 500 to a statement, in one transaction; then VACUUM ANALYZE and a
 * checkpoint, as autovacuum and time would have done to a database in use: measured right after
 * the inserts, autovacuum and the checkpointer ran in the measurements (p99 of 130 ms).
 */
async function viaPostgres(url: string, orgNames: string[], nBoxes: number, nVersions: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orgId = new Map(
      (await client.query<{ name: string; id: string }>('SELECT name, id FROM organizations')).rows.map((r) => [
        r.name,
        r.id,
      ]),
    );
    const batches: Record<string, { columns: string; rows: unknown[][] }> = {
      boxes: { columns: BOX_COLUMNS, rows: [] },
      box_versions: { columns: VERSION_COLUMNS, rows: [] },
      box_providers: { columns: PROVIDER_COLUMNS, rows: [] },
    };
    const flush = async (table: string) => {
      const b = batches[table];
      if (!b.rows.length) return;
      const width = b.rows[0].length;
      const values = b.rows
        .map((_, r) => `(${Array.from({ length: width }, (__, c) => `$${r * width + c + 1}`).join(', ')})`)
        .join(', ');
      await client.query(`INSERT INTO ${table} (${b.columns}) VALUES ${values}`, b.rows.flat());
      b.rows = [];
    };
    const pending: Array<[string, unknown[]]> = [];
    eachRow(orgId, orgNames, nBoxes, nVersions, {
      box: (r) => pending.push(['boxes', r]),
      version: (r) => pending.push(['box_versions', r]),
      provider: (r) => pending.push(['box_providers', r]),
    });
    await client.query('BEGIN');
    // Parents before children: every box, then every version, then every provider.
    for (const table of ['boxes', 'box_versions', 'box_providers']) {
      for (const [t, r] of pending) {
        if (t !== table) continue;
        batches[t].rows.push(r);
        if (batches[t].rows.length === 500) await flush(t);
      }
      await flush(table);
    }
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

export async function seed(
  dataDir: string,
  opts: { boxes?: number; versions?: number; agents?: number; orgs?: number; database?: string } = {},
): Promise<Seed> {
  const boxes = opts.boxes ?? 10_000;
  const versions = opts.versions ?? 10;
  const a = await viaApi(dataDir, opts.orgs ?? 4, opts.agents ?? 1_000, seedEnv(opts));
  if (opts.database) {
    await viaPostgres(opts.database, a.orgs, boxes, versions);
  } else {
    const dbFile = join(dataDir, 'boxyard.db');
    if (!existsSync(dbFile))
      throw new Error(`${dbFile} not found: the daemon keeps its database elsewhere now; update bench/seed.ts`);
    viaSql(dbFile, a.orgs, boxes, versions);
  }
  const middle = Math.floor(boxes / 2) + 1;
  const s: Seed = {
    dataDir,
    ...a,
    org: a.orgs[middle % a.orgs.length],
    box: `box-${middle}`,
    boxes,
    versions,
    database: opts.database,
  };
  writeFileSync(join(dataDir, 'bench-seed.json'), JSON.stringify(s, null, 1));
  return s;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1])) && process.argv[2]) {
  const t0 = Date.now();
  seed(process.argv[2]).then(
    (s) => {
      process.stdout.write(
        `${JSON.stringify({ ...s, agentIds: `${s.agentIds.length} ids` }, null, 1)}\nseeded in ${Date.now() - t0} ms\n`,
      );
    },
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
}
