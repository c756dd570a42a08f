import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ApiError, BoxyardClient, withServerOptions, type ServerOptions } from './client';
import { readExportFolder, verifyExport, isExportFolder, type ExportedBox } from './import-folder';
import { createMeter, formatBytes, type Meter } from './meter';
import { BOX, BOXYARD } from '../../http/route-table';
import { pathTo } from '../../http/urls';
import { UNSTATED_ARCHITECTURE } from '../../contract/box-metadata';

interface ImportOptions extends ServerOptions {
  as?: string;
  version?: string;
  provider?: string;
  architecture?: string;
  release: boolean;
}

/** One file to PUT to the import endpoint, and what to tell it. */
interface Upload {
  path: string;
  /** How progress lines name it. */
  label: string;
  size: number;
  box: string;
  version: string;
  provider?: string;
  architecture?: string;
  sha256?: string;
}

interface Imported {
  box: string;
  version: string;
  provider: string;
  architecture: string;
  sha256: string;
  size: number;
  released: boolean;
}

/** What the box already has (GET /api/v2/box/ORG/BOX), so a re-run skips what arrived before. */
interface BoxState {
  versions: Array<{
    version: string;
    status: string;
    providers: Array<{ name: string; architecture: string; checksum: string | null }>;
  }>;
}

/** `ORG/BOX` as the box API's path parameters. */
const named = (box: string) => {
  const [username = '', name = ''] = box.split('/');
  return { username, name };
};

function importPath(u: Upload): string {
  const q = new URLSearchParams({ release: 'false' });
  if (u.provider) q.set('provider', u.provider);
  if (u.architecture) q.set('architecture', u.architecture);
  // The daemon verifies every byte against the sha256 the export recorded.
  if (u.sha256) {
    q.set('checksum', u.sha256);
    q.set('checksum_type', 'sha256');
  }
  const { username, name } = named(u.box);
  return `${pathTo('boxyard', BOXYARD.import, { username, box: name, version: u.version })}?${q}`;
}

/** Creating what exists already is fine: a re-run of an import goes on where it stopped. */
async function unlessExists(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'conflict')) throw err;
  }
}

async function boxState(client: BoxyardClient, box: string): Promise<BoxState> {
  try {
    return await client.json<BoxState>('GET', pathTo('v2', BOX.box, named(box)));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return { versions: [] };
    throw err;
  }
}

/**
 * Across an air gap the organization usually does not exist yet: it is made, owned by the caller,
 * as a mirror's target would be.
 */
async function createBox(client: BoxyardClient, b: ExportedBox, meter: Meter): Promise<void> {
  const [username, name] = b.name.split('/');
  const c = b.catalog;
  const create = () =>
    client.json('POST', pathTo('v1', BOX.boxes, {}), {
      box: {
        username,
        name,
        short_description: c.short_description ?? '',
        description: c.description ?? '',
        is_private: c.private ?? true,
      },
    });
  try {
    await unlessExists(create);
  } catch (err) {
    // The only not_found of a box create: no user or organization has that name.
    if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
    await client.json('POST', pathTo('boxyard', BOXYARD.organizations, {}), { organization: { name: username } });
    meter.log(`created organization ${username}`);
    await create();
  }
}

/** An export's boxes and versions, made first so they carry their descriptions. */
async function createBoxes(client: BoxyardClient, boxes: ExportedBox[], meter: Meter): Promise<void> {
  for (const b of boxes) {
    const c = b.catalog;
    await createBox(client, b, meter);
    for (const v of c.versions) {
      await unlessExists(() =>
        client.json('POST', pathTo('v1', BOX.versions, named(b.name)), {
          version: { version: v.version, description: v.description_markdown ?? v.description ?? '' },
        }),
      );
    }
  }
}

/** PUTs every file (skipping providers that already hold the same sha256), then releases. */
async function uploadAll(client: BoxyardClient, uploads: Upload[], release: boolean, meter: Meter): Promise<void> {
  const total = uploads.reduce((n, u) => n + u.size, 0);
  const states = new Map<string, BoxState>();
  for (const box of new Set(uploads.map((u) => u.box))) states.set(box, await boxState(client, box));
  let done = 0;
  for (const [i, u] of uploads.entries()) {
    const progress = (label: string) =>
      meter.update({ bytesDone: done, bytesTotal: total, filesDone: i, filesTotal: uploads.length, label });
    const state = states.get(u.box);
    if (!state) throw new Error(`What ${u.box} holds was not read before its files were uploaded.`);
    const have = state.versions
      .find((v) => v.version === u.version)
      ?.providers.find(
        (p) =>
          p.name === u.provider &&
          (u.architecture === undefined || p.architecture === u.architecture) &&
          p.checksum === u.sha256,
      );
    if (have && u.sha256) {
      done += u.size;
      meter.log(`${u.box} ${u.version} ${u.provider}/${have.architecture} is already there`);
      continue;
    }
    progress(u.label);
    const r = await client.putFile<{ import: Imported }>(importPath(u), u.path, u.size, (n) => {
      done += n;
      progress(u.label);
    });
    const m = r.import;
    meter.log(
      `imported ${u.label} as ${m.provider}/${m.architecture} into ${m.box} ${m.version} (${formatBytes(m.size)}, sha256 ${m.sha256})`,
    );
  }
  meter.update({
    bytesDone: done,
    bytesTotal: total,
    filesDone: uploads.length,
    filesTotal: uploads.length,
    label: 'uploaded',
  });
  if (release) await releaseAll(client, uploads, meter);
}

async function releaseAll(client: BoxyardClient, uploads: Upload[], meter: Meter): Promise<void> {
  const versions = new Map(uploads.map((u) => [`${u.box}@${u.version}`, u]));
  for (const u of versions.values()) {
    const state = (await boxState(client, u.box)).versions.find((v) => v.version === u.version);
    if (state?.status !== 'unreleased') continue;
    await client.json('PUT', pathTo('v1', BOX.release, { ...named(u.box), version: u.version }));
    meter.log(`released ${u.box} ${u.version}`);
  }
}

function target(opts: ImportOptions, what: string): { box: string; version: string } {
  if (!opts.as || !opts.version) throw new Error(`importing ${what} needs --as ORG/BOX and --version VERSION.`);
  if (!/^[^/]+\/[^/]+$/.test(opts.as)) throw new Error(`--as must be ORG/BOX, not "${opts.as}".`);
  return { box: opts.as, version: opts.version };
}

/** A `.box` file, or a folder of them: each becomes a provider of --as at --version. */
async function boxFiles(path: string, isDir: boolean, opts: ImportOptions): Promise<Upload[]> {
  const names = isDir ? (await readdir(path)).filter((n) => n.endsWith('.box')).sort() : [basename(path)];
  const dir = isDir ? path : resolve(path, '..');
  if (!names.length) throw new Error(`${path} holds neither boxyard-export.json nor .box files.`);
  const t = target(opts, isDir ? `a folder of .box files` : 'a .box file');
  return Promise.all(
    names.map(async (n) => ({
      path: join(dir, n),
      label: n,
      size: (await stat(join(dir, n))).size,
      ...t,
      provider: opts.provider,
      architecture: opts.architecture,
    })),
  );
}

/** An export folder: checked against its manifest first, then boxes, versions, files, releases. */
async function exportUploads(client: BoxyardClient, dir: string, opts: ImportOptions, meter: Meter): Promise<Upload[]> {
  if (opts.version || opts.provider || opts.architecture)
    throw new Error(
      '--version, --provider and --architecture are for .box files: an export names them for every file.',
    );
  const folder = await readExportFolder(dir, opts.as);
  await verifyExport(dir, folder.files, meter);
  meter.log(`verified ${folder.files.length} files against the manifest`);
  await createBoxes(client, folder.boxes, meter);
  return folder.files.map((f) => ({
    path: f.path,
    label: f.rel,
    size: f.size,
    box: f.box,
    version: f.version,
    provider: f.provider,
    architecture: f.architecture,
    sha256: f.sha256,
  }));
}

async function runImport(path: string, opts: ImportOptions, out: NodeJS.WriteStream): Promise<void> {
  const client = new BoxyardClient(opts);
  const full = resolve(path);
  const s = await stat(full).catch(() => null);
  if (!s) throw new Error(`${path} does not exist.`);
  const meter = createMeter(out);
  try {
    const uploads =
      s.isDirectory() && isExportFolder(full)
        ? await exportUploads(client, full, opts, meter)
        : await boxFiles(full, s.isDirectory(), opts);
    await uploadAll(client, uploads, opts.release, meter);
  } finally {
    meter.stop();
  }
}

/** `boxyard import`: sends .box files or a folder written by `boxyard export` to a running daemon. */
export function importCommand(program: Command): void {
  withServerOptions(
    program
      .command('import <path>')
      .description(
        'import a .box file, a folder of .box files, or a folder written by boxyard export (every file checked against its manifest)',
      ),
  )
    .option('--as <box>', 'ORG/BOX to import into (needed for .box files; renames the box of a one-box export)')
    .option('--version <version>', 'the version .box files become providers of')
    .option('--provider <name>', "the provider of a .box file (default: its metadata.json's)")
    .option(
      '--architecture <arch>',
      `the architecture of a .box file (default: its metadata.json's, else ${UNSTATED_ARCHITECTURE})`,
    )
    .option('--no-release', 'leave the versions unreleased')
    .action(async (path: string, opts: ImportOptions) => runImport(path, opts, process.stdout));
}
