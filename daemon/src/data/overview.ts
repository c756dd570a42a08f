import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema';
import type { ActivityJson, OverviewJson } from '../contract/wire/overview';
import type { AgentStatus } from '../contract/wire/jsonapi';
import { noAgents } from '../contract/wire/agent-counts';
import type { JobState } from '../contract/wire/mirror';
import { executeReadOnly } from '../store/cache/statement-tables';

/** Whose view: an administrator sees everything, anyone else public boxes and their own namespaces'. */
export type Viewer = { all: true } | { userId: string };

/** How many of each kind of recent activity are read (one query each); the page shows the newest of them together. */
export const ACTIVITY_LIMIT = 15;

export interface OverviewCounts {
  boxes: number;
  versions: number;
  files: number;
}
export type OrganizationCounts = OverviewJson['organizations'];
export type GettingStartedCounts = OverviewJson['getting_started'];

/** The box `b` may be seen by the viewer (the rule of registry/access.ts, in SQL). */
function boxVisible(v: Viewer): RawBuilder<boolean> {
  if ('all' in v) return sql<boolean>`1 = 1`;
  return sql<boolean>`(b.private = 0 or b.user_id = ${v.userId}
    or b.organization_id in (select ms.organization_id from memberships ms where ms.user_id = ${v.userId}))`;
}

/** The organization whose id is `column` is the viewer's: they are a member (orgs/access.ts, in SQL). */
function orgVisible(v: Viewer, column: RawBuilder<string>): RawBuilder<boolean> {
  if ('all' in v) return sql<boolean>`1 = 1`;
  return sql<boolean>`${column} in (select ms.organization_id from memberships ms where ms.user_id = ${v.userId})`;
}

/** The viewer may manage the box `b`: it is theirs or their organization's (the rule of registry/access.ts, in SQL). */
function boxManaged(v: Viewer): RawBuilder<boolean> {
  if ('all' in v) return sql<boolean>`1 = 1`;
  return sql<boolean>`(b.user_id = ${v.userId} or ${orgVisible(v, sql`b.organization_id`)})`;
}

/**
 * The version `bv` of the box `b` may be seen by the viewer: released or revoked, or any when they
 * may manage the box (the rule of registry/access.ts, in SQL: unreleased versions are their managers').
 */
function versionVisible(v: Viewer): RawBuilder<boolean> {
  if ('all' in v) return sql<boolean>`1 = 1`;
  return sql<boolean>`(bv.status <> 'unreleased' or ${boxManaged(v)})`;
}

/** The viewer manages the mirror `m`'s target namespace (the rule of mirror/mirrors-service.ts, in SQL). */
function mirrorVisible(v: Viewer): RawBuilder<boolean> {
  if ('all' in v) return sql<boolean>`1 = 1`;
  // A target is a namespace or NAMESPACE/BOX; names are compared by their lower-case key.
  const owns = (key: RawBuilder<string>) =>
    sql<boolean>`(lower(m.target) = ${key} or substr(lower(m.target), 1, length(${key}) + 1) = ${key} || '/')`;
  return sql<boolean>`(exists (select 1 from users u where u.id = ${v.userId} and ${owns(sql`u.username_key`)})
    or exists (select 1 from memberships ms join organizations o on o.id = ms.organization_id where ms.user_id = ${v.userId} and ${owns(sql`o.name_key`)}))`;
}

/** The box `b` with its owner's name: `ORG/BOX`. */
const BOX_TAG = sql<string>`coalesce(owner_user.username, owner_org.name) || '/' || b.name`;
const OWNER_JOINS = sql`left join users owner_user on owner_user.id = b.user_id left join organizations owner_org on owner_org.id = b.organization_id`;

type Row = Record<string, string | number | null>;
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function activity(kind: ActivityJson['kind'], r: Row): ActivityJson {
  return {
    kind,
    at: String(r.at),
    target: String(r.target),
    version: str(r.version),
    provider: str(r.provider),
    architecture: str(r.architecture),
    size: num(r.size),
    state: str(r.state) as JobState | null,
    source: str(r.source),
    message: str(r.message),
  };
}

/**
 * The SQL of the overview page: counts, the stored files' size and recent activity, each one
 * query whatever the number of boxes (no query per row).
 */
export class OverviewQueries {
  constructor(private readonly db: Kysely<Database>) {}

  async counts(v: Viewer): Promise<OverviewCounts> {
    const vis = boxVisible(v);
    const seen = versionVisible(v);
    const r = await executeReadOnly(
      sql<Row>`select
      (select count(*) from boxes b where ${vis}) as boxes,
      (select count(*) from box_versions bv join boxes b on b.id = bv.box_id where ${vis} and ${seen}) as versions,
      (select count(distinct p.blob_sha256) from box_providers p join box_versions bv on bv.id = p.version_id
        join boxes b on b.id = bv.box_id where p.blob_sha256 is not null and ${vis} and ${seen}) as files`,
      this.db,
    );
    const row = r.rows[0];
    return { boxes: Number(row.boxes), versions: Number(row.versions), files: Number(row.files) };
  }

  /**
   * Organizations the viewer belongs to, their agent pools, and those pools' agents by status: one query, which counts
   * the agents from their (pool_id, status) index (a row per status they have, with both other counts on each). Asked
   * as `pool_id in (…)`: SQLite reads a join's agents row by row, about 3x slower at 10,000 agents.
   */
  async organizations(v: Viewer): Promise<OrganizationCounts> {
    const member = (column: RawBuilder<string>) => orgVisible(v, column);
    const r = await executeReadOnly(
      sql<Row>`select
      (select count(*) from organizations o where ${member(sql`o.id`)}) as organizations,
      (select count(*) from agent_pools ap where ${member(sql`ap.organization_id`)}) as pools,
      ag.status as status, ag.n as n
      from (select 1 as one) one left join (select a.status as status, count(*) as n from agents a
        where a.pool_id in (select ap.id from agent_pools ap where ${member(sql`ap.organization_id`)})
        group by a.status) ag on 1 = 1`,
      this.db,
    );
    const agents = noAgents();
    for (const row of r.rows) if (row.status !== null) agents[row.status as AgentStatus] = Number(row.n);
    const first = r.rows[0];
    return { count: Number(first.organizations), pools: Number(first.pools), agents };
  }

  /**
   * What the getting-started checklist reads, in the namespaces the viewer manages: boxes, files people uploaded
   * (as `uploads` below), released versions; and the users, for an administrator only. One query.
   */
  async gettingStarted(v: Viewer): Promise<GettingStartedCounts> {
    const mine = boxManaged(v);
    const users = 'all' in v ? sql`(select count(*) from users)` : sql`null`;
    const r = await executeReadOnly(
      sql<Row>`select
      (select count(*) from boxes b where ${mine}) as boxes,
      (select count(*) from box_providers p join box_versions bv on bv.id = p.version_id join boxes b on b.id = bv.box_id
        where p.blob_sha256 is not null and p.source_url is null and bv.mirror_id is null and ${mine}) as uploads,
      (select count(*) from box_versions bv join boxes b on b.id = bv.box_id where bv.status = 'active' and ${mine})
        as releases,
      ${users} as users`,
      this.db,
    );
    const row = r.rows[0];
    return {
      boxes: Number(row.boxes),
      uploads: Number(row.uploads),
      releases: Number(row.releases),
      users: num(row.users),
    };
  }

  /** Bytes of the stored box files, each file once however many providers share it. */
  async storedBytes(): Promise<number> {
    const r = await executeReadOnly(
      sql<Row>`select coalesce(sum(f.size), 0) as bytes from
      (select max(p.size) as size from box_providers p where p.blob_sha256 is not null group by p.blob_sha256) f`,
      this.db,
    );
    return Number(r.rows[0].bytes);
  }

  /** Files people uploaded (not those a mirror or the pull-through cache fetched), newest first. */
  async uploads(v: Viewer): Promise<ActivityJson[]> {
    const r = await executeReadOnly(
      sql<Row>`select p.updated_at as at, ${BOX_TAG} as target, bv.version as version,
        p.name as provider, p.architecture as architecture, p.size as size
      from box_providers p join box_versions bv on bv.id = p.version_id join boxes b on b.id = bv.box_id ${OWNER_JOINS}
      where p.blob_sha256 is not null and p.source_url is null and bv.mirror_id is null and ${boxVisible(v)} and ${versionVisible(v)}
      order by p.updated_at desc limit ${ACTIVITY_LIMIT}`,
      this.db,
    );
    return r.rows.map((row) => activity('upload', row));
  }

  /** Released versions, newest change first. */
  async releases(v: Viewer): Promise<ActivityJson[]> {
    const r = await executeReadOnly(
      sql<Row>`select bv.updated_at as at, ${BOX_TAG} as target, bv.version as version
      from box_versions bv join boxes b on b.id = bv.box_id ${OWNER_JOINS}
      where bv.status = 'active' and ${boxVisible(v)}
      order by bv.updated_at desc limit ${ACTIVITY_LIMIT}`,
      this.db,
    );
    return r.rows.map((row) => activity('release', row));
  }

  /** Mirror jobs, by when they last started or ended. */
  async mirrorJobs(v: Viewer): Promise<ActivityJson[]> {
    const at = sql`coalesce(j.finished_at, j.started_at, j.created_at)`;
    const r = await executeReadOnly(
      sql<Row>`select ${at} as at, m.target as target, m.source as source, j.state as state, j.message as message
      from mirror_jobs j join mirrors m on m.id = j.mirror_id
      where ${mirrorVisible(v)}
      order by ${at} desc limit ${ACTIVITY_LIMIT}`,
      this.db,
    );
    return r.rows.map((row) => activity('mirror_job', row));
  }
}
