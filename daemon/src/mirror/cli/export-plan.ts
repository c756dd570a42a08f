/**
 * How `boxyard export` plans: the boxes, versions and files (`ExportBox`, `ExportFile` of mirror/export/plan.ts)
 * taken from a running Boxyard's catalogs, through its API.
 */
import { z } from 'zod';
import { describeIssues } from '../../http/validate';
import { isGemVersion } from '../../contract/names';
import { BoxName, isArchitecture } from '../../contract/bodies/registry';
import { parseBoxSpec, type ExportBox, type ExportFile } from '../export/plan';
import { DEFAULT_ARCHITECTURE } from '../../registry/schemas';
import { exportFileName, UpstreamCatalog } from '../upstreams/catalog-schema';
import { ApiError, type BoxyardClient } from './client';
import { selectVersions } from '../version-filter';
import { BOX, ROOT } from '../../http/route-table';
import { pathTo } from '../../http/urls';

export interface ExportSelection {
  versions?: string;
  latest?: number;
  provider?: string[];
  architecture?: string[];
}

const BoxInfo = z.object({
  description: z.string().nullish(),
  short_description: z.string().nullish(),
  private: z.boolean().nullish(),
});

async function readCatalog(client: BoxyardClient, org: string, box: string): Promise<UpstreamCatalog> {
  let raw: unknown;
  try {
    raw = await client.json('GET', pathTo('root', ROOT.catalog, { org, box }));
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'not_found' || err.code === 'offline'))
      throw new Error(`${client.server} has no box ${org}/${box} (or the token may not see it).`);
    throw err;
  }
  const r = UpstreamCatalog.safeParse(raw);
  if (!r.success)
    throw new Error(`The catalog of ${org}/${box} is not what a Boxyard daemon serves: ${describeIssues(r.error)}.`);
  return r.data;
}

/** A provider's name and architecture name files: only what the registry itself accepts. */
function checkedProvider(name: string, architecture: string, where: string): void {
  if (!BoxName.safeParse(name).success) throw new Error(`${where}: provider "${name}" is not a name Boxyard accepts.`);
  if (!isArchitecture(architecture))
    throw new Error(`${where}: architecture "${architecture}" is not one vagrant knows.`);
}

function pickVersions(catalog: UpstreamCatalog, pinned: string | null, sel: ExportSelection) {
  const usable = catalog.versions.filter((v) => isGemVersion(v.version));
  if (pinned) return usable.filter((v) => v.version === pinned);
  const chosen = new Set(
    selectVersions(
      usable.map((v) => v.version),
      { versions: sel.versions, latest: sel.latest },
    ),
  );
  return usable.filter((v) => chosen.has(v.version));
}

/** The catalog's versions and providers that the selection takes, newest version first. */
export async function planBoxExport(client: BoxyardClient, spec: string, sel: ExportSelection): Promise<ExportBox> {
  const { org, box, version } = parseBoxSpec(spec);
  const name = `${org}/${box}`;
  const catalog = await readCatalog(client, org, box);
  const info = BoxInfo.parse(await client.json('GET', pathTo('v1', BOX.box, { username: org, name: box })));
  const wanted = (list: string[] | undefined, value: string) => !list?.length || list.includes(value);
  const versions = pickVersions(catalog, version, sel)
    .map((v) => ({
      version: v.version,
      description: v.description_markdown ?? v.description ?? '',
      files: v.providers
        .map((p) => ({ p, architecture: p.architecture ?? DEFAULT_ARCHITECTURE }))
        .filter(({ p, architecture }) => wanted(sel.provider, p.name) && wanted(sel.architecture, architecture))
        .map(({ p, architecture }): ExportFile => {
          checkedProvider(p.name, architecture, `${name} ${v.version}`);
          return {
            box: name,
            version: v.version,
            provider: p.name,
            architecture,
            default_architecture: p.default_architecture ?? false,
            url: p.url,
            checksum: p.checksum ?? null,
            checksum_type: p.checksum_type ?? null,
            size: null,
            file: exportFileName(v.version, p.name, architecture),
          };
        }),
    }))
    .filter((v) => v.files.length > 0);
  if (!versions.length) {
    throw new Error(
      `${name} has no ${version ? `released version ${version}` : 'released version'} with a provider that matches the selection.`,
    );
  }
  return {
    name,
    description: info.description ?? '',
    short_description: info.short_description ?? '',
    private: info.private ?? true,
    versions,
  };
}

/** Learns each file's size with HEAD (for the dry run, progress and the size check). */
export async function sizeFiles(client: BoxyardClient, files: ExportFile[]): Promise<void> {
  for (const f of files) {
    const res = await client.fetch(f.url, { method: 'HEAD' });
    if (!res.ok)
      throw new Error(`HEAD ${f.url}: ${res.status}; is the file of ${f.box} ${f.version} ${f.provider} still there?`);
    const length = res.headers.get('content-length');
    f.size = length !== null && /^\d+$/.test(length) ? Number(length) : null;
  }
}
