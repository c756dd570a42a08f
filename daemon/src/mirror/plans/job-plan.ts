/**
 * The plan of one mirror job: every box the mirror covers, planned (box-plan.ts), with the files to fetch and their
 * sizes.
 */
import type { Insertable } from 'kysely';
import type { IdGen } from '../../lib/ids';
import { checkedBoxName, planBox, type PlannedBox, type PlannedProvider } from './box-plan';
import type { MirrorRow } from '../repository';
import type { MirrorFilesTable } from '../tables';
import type { FetchedCatalog, UpstreamSource } from '../upstreams/source';
import { UpstreamError } from '../../lib/errors';
import { UpstreamRefusedError } from '../upstreams/http';
import type { OrgService } from '../../orgs/service';
import type { PublishService } from '../../registry/versions/publish-service';
import type { UpstreamBoxInfo } from '../upstreams/catalog-schema';

export type JobProvider = PlannedProvider & { file_id: string };
export type JobBox = Omit<PlannedBox, 'versions'> & {
  versions: Array<{ version: string; description: string; providers: JobProvider[] }>;
};
/** What a job publishes (stored as JSON on the job, so a resumed job publishes the same). */
export interface JobPlan {
  boxes: JobBox[];
  /** Boxes of an organization the upstream listed but would not show, with why. */
  skipped?: Array<{ box: string; reason: string }>;
  /** Filled in once published. */
  published?: Array<{
    box: string;
    versions: string[];
    pruned?: string[];
    /** Followed from the upstream: box fields, versions whose description changed, versions revoked. */
    updated?: string[];
    described?: string[];
    revoked?: string[];
  }>;
}

export interface PlanContext {
  source: UpstreamSource;
  ids: IdGen;
  /** Versions the local box already has (none when it does not exist). */
  localVersions(target: string): Promise<Set<string>>;
  signal?: AbortSignal;
}

export const parseList = (json: string): string[] => JSON.parse(json) as string[];

/**
 * `PlanContext.localVersions`: the versions the local box `ORG/BOX` has (none when it or its namespace does not exist).
 */
export function localVersionsOf(deps: {
  orgs: OrgService;
  publisher: PublishService;
}): (target: string) => Promise<Set<string>> {
  return async (target) => {
    const [namespace, box] = target.split('/');
    const ns = await deps.orgs.namespace(namespace);
    return ns ? deps.publisher.versionNumbers(ns, box) : new Set();
  };
}

/** The ORG/BOX pairs a mirror covers: one box, or every box of an organization upstream. */
async function boxesOf(mirror: MirrorRow, ctx: PlanContext): Promise<Array<{ source: string; target: string }>> {
  if (mirror.source.includes('/')) return [{ source: mirror.source, target: mirror.target }];
  const names = await ctx.source.listBoxes(mirror.source, ctx.signal);
  return names.map((source) => {
    const { box } = checkedBoxName(source, 'The upstream lists a box');
    return { source, target: `${mirror.target}/${box}` };
  });
}

const NOT_THERE = 'the upstream has no such box, or it is private (give the upstream a token that may see it)';

/**
 * A box's catalog and what its box API says. A box the upstream will not show is skipped (with
 * why) when it is one of an organization's; a mirror of that one box fails. A refused token
 * (401) fails either.
 */
async function readBox(
  source: string,
  ctx: PlanContext,
  many: boolean,
): Promise<{ fetched: FetchedCatalog; info: UpstreamBoxInfo | null } | { skipped: string }> {
  try {
    const fetched = await ctx.source.catalog(source, ctx.signal);
    if (!fetched) {
      if (many) return { skipped: NOT_THERE };
      throw new UpstreamError(
        `The upstream has no box ${source} (or it is private: give the upstream a token that may see it).`,
      );
    }
    return { fetched, info: await ctx.source.info(source, ctx.signal) };
  } catch (err) {
    if (many && err instanceof UpstreamRefusedError && err.status === 403) return { skipped: err.message };
    throw err;
  }
}

/**
 * Reads the upstream catalogs of a mirror and decides every file to fetch. Sizes are asked
 * ahead (HEAD) so the job can report progress and an ETA; unknown sizes are learnt on download.
 */
export async function buildJobPlan(
  mirror: MirrorRow,
  jobId: string,
  ctx: PlanContext,
): Promise<{ plan: JobPlan; files: Insertable<MirrorFilesTable>[] }> {
  // Versions retention would delete at once are not fetched at all.
  const latest = mirror.retain ? Math.min(mirror.latest ?? mirror.retain, mirror.retain) : mirror.latest;
  const filter = {
    versions: mirror.versions,
    latest,
    providers: parseList(mirror.providers),
    architectures: parseList(mirror.architectures),
  };
  const skipped: NonNullable<JobPlan['skipped']> = [];
  const plan: JobPlan = { boxes: [], skipped };
  const files: Insertable<MirrorFilesTable>[] = [];
  const byUrl = new Map<string, string>();
  const many = !mirror.source.includes('/');
  for (const { source, target } of await boxesOf(mirror, ctx)) {
    checkedBoxName(target, 'The mirror target');
    const read = await readBox(source, ctx, many);
    if ('skipped' in read) {
      skipped.push({ box: source, reason: read.skipped });
      continue;
    }
    const planned = planBox(source, target, read.fetched, filter, await ctx.localVersions(target), read.info);
    const versions = [];
    for (const v of planned.versions) {
      const providers: JobProvider[] = [];
      for (const p of v.providers) {
        let fileId = byUrl.get(p.url);
        if (!fileId) {
          fileId = ctx.ids.id('mfile');
          byUrl.set(p.url, fileId);
          files.push({
            id: fileId,
            job_id: jobId,
            url: p.url,
            checksum: p.checksum,
            checksum_type: p.checksum_type,
            size: null,
            bytes_done: 0,
            state: 'pending',
          });
        }
        providers.push({ ...p, file_id: fileId });
      }
      versions.push({ ...v, providers });
    }
    plan.boxes.push({ ...planned, versions });
  }
  await askSizes(files, ctx);
  return { plan, files };
}

/** HEAD of every file, a few at once (an organization is hundreds of files). */
async function askSizes(files: Insertable<MirrorFilesTable>[], ctx: PlanContext, atOnce = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++];
      f.size = await ctx.source.size(f.url, ctx.signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, files.length) }, worker));
}
