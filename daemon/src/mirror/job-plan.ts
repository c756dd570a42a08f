import type { Insertable } from 'kysely';
import type { IdGen } from '../lib/ids';
import { checkedBoxName, planBox, type PlannedBox, type PlannedProvider } from './planner';
import type { MirrorRow } from './repository';
import type { MirrorFilesTable } from './tables';
import type { UpstreamSource } from './upstreams/source';
import { UpstreamError } from '../lib/errors';

export type JobProvider = PlannedProvider & { file_id: string };
export type JobBox = Omit<PlannedBox, 'versions'> & { versions: Array<{ version: string; description: string; providers: JobProvider[] }> };
/** What a job publishes (stored as JSON on the job, so a resumed job publishes the same). */
export interface JobPlan {
  boxes: JobBox[];
  /** Filled in once published. */
  published?: Array<{ box: string; versions: string[]; pruned?: string[] }>;
}

export interface PlanContext {
  source: UpstreamSource;
  ids: IdGen;
  /** Versions the local box already has (none when it does not exist). */
  localVersions(target: string): Promise<Set<string>>;
  signal?: AbortSignal;
}

export const parseList = (json: string): string[] => JSON.parse(json) as string[];

/** The ORG/BOX pairs a mirror covers: one box, or every box of an organization upstream. */
async function boxesOf(mirror: MirrorRow, ctx: PlanContext): Promise<Array<{ source: string; target: string }>> {
  if (mirror.source.includes('/')) return [{ source: mirror.source, target: mirror.target }];
  const names = await ctx.source.listBoxes(mirror.source, ctx.signal);
  return names.map((source) => {
    const { box } = checkedBoxName(source, 'The upstream lists a box');
    return { source, target: `${mirror.target}/${box}` };
  });
}

/**
 * Reads the upstream catalogs of a mirror and decides every file to fetch. Sizes are asked
 * ahead (HEAD) so the job can report progress and an ETA; unknown sizes are learnt on download.
 */
export async function buildJobPlan(mirror: MirrorRow, jobId: string, ctx: PlanContext): Promise<{ plan: JobPlan; files: Insertable<MirrorFilesTable>[] }> {
  // Versions retention would delete at once are not fetched at all.
  const latest = mirror.retain ? Math.min(mirror.latest ?? mirror.retain, mirror.retain) : mirror.latest;
  const filter = { versions: mirror.versions, latest, providers: parseList(mirror.providers), architectures: parseList(mirror.architectures) };
  const plan: JobPlan = { boxes: [] };
  const files: Insertable<MirrorFilesTable>[] = [];
  const byUrl = new Map<string, string>();
  for (const { source, target } of await boxesOf(mirror, ctx)) {
    checkedBoxName(target, 'The mirror target');
    const fetched = await ctx.source.catalog(source, ctx.signal);
    if (!fetched) throw new UpstreamError(`The upstream has no box ${source} (or it is private: give the upstream a token).`);
    const planned = planBox(source, target, fetched, filter, await ctx.localVersions(target));
    const versions = [];
    for (const v of planned.versions) {
      const providers: JobProvider[] = [];
      for (const p of v.providers) {
        let fileId = byUrl.get(p.url);
        if (!fileId) {
          fileId = ctx.ids.id('mfile');
          byUrl.set(p.url, fileId);
          const size = await ctx.source.size(p.url, ctx.signal);
          files.push({ id: fileId, job_id: jobId, url: p.url, checksum: p.checksum, checksum_type: p.checksum_type, size, bytes_done: 0, state: 'pending' });
        }
        providers.push({ ...p, file_id: fileId });
      }
      versions.push({ ...v, providers });
    }
    plan.boxes.push({ ...planned, versions });
  }
  return { plan, files };
}
