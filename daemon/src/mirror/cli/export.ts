import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { nameKey } from '../../contract/names';
import { checkOut, finishExport } from '../export/layout';
import { filesOf, type ExportBox, type ExportFile } from '../export/plan';
import type { ExportManifest } from '../upstreams/catalog-schema';
import { BoxyardClient, collect, positiveInt, withServerOptions, type ServerOptions } from './client';
import { downloadFile } from './download';
import { planBoxExport, sizeFiles, type ExportSelection } from './export-plan';
import { createMeter, formatBytes, type Meter } from './meter';

interface ExportOptions extends ServerOptions, ExportSelection {
  out: string;
  dryRun?: boolean;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('x') ? 'es' : 's'}`;

function printPlan(out: NodeJS.WriteStream, dir: string, boxes: ExportBox[]): void {
  const files = filesOf(boxes);
  for (const f of files) out.write(`  ${f.box}/${f.file}  ${f.size === null ? 'size unknown' : formatBytes(f.size)}\n`);
  const bytes = files.reduce((n, f) => n + (f.size ?? 0), 0);
  const unknown = files.some((f) => f.size === null) ? 'at least ' : '';
  out.write(
    `dry run: would write ${count(files.length, 'file')} of ${count(boxes.length, 'box')} to ${dir}, ${unknown}${formatBytes(bytes)} (${bytes} bytes); nothing was written\n`,
  );
}

/** The files' total size; null when one's size is unknown. */
function totalSize(files: ExportFile[]): number | null {
  let total = 0;
  for (const f of files) {
    if (f.size === null) return null;
    total += f.size;
  }
  return total;
}

async function downloadAll(client: BoxyardClient, dir: string, files: ExportFile[], meter: Meter) {
  const total = totalSize(files);
  const sha256 = new Map<ExportFile, string>();
  const entries: ExportManifest['files'] = [];
  let before = 0;
  for (const [i, f] of files.entries()) {
    const rel = `${f.box}/${f.file}`;
    const progress = (bytes: number) =>
      meter.update({
        bytesDone: before + bytes,
        bytesTotal: total,
        filesDone: i,
        filesTotal: files.length,
        label: rel,
      });
    const got = await downloadFile(client, f, join(dir, rel), progress);
    before += got.size;
    sha256.set(f, got.sha256);
    entries.push({ path: rel, size: got.size, sha256: got.sha256 });
    const how = got.reused ? 'already complete' : got.resumed ? `resumed at ${formatBytes(got.resumed)}` : 'downloaded';
    meter.log(`${rel}: ${how}, ${formatBytes(got.size)}, sha256 ${got.sha256}`);
    meter.update({ bytesDone: before, bytesTotal: total, filesDone: i + 1, filesTotal: files.length, label: rel });
  }
  return { sha256, entries };
}

async function runExport(specs: string[], opts: ExportOptions, out: NodeJS.WriteStream): Promise<void> {
  const client = new BoxyardClient(opts);
  const dir = resolve(opts.out);
  const boxes: ExportBox[] = [];
  for (const spec of specs) boxes.push(await planBoxExport(client, spec, opts));
  const names = boxes.map((b) => b.name);
  if (new Set(names.map(nameKey)).size !== names.length)
    throw new Error(`Each box may be named once: ${names.join(', ')}.`);
  await sizeFiles(client, filesOf(boxes));
  if (opts.dryRun) return printPlan(out, dir, boxes);
  await checkOut(dir, names);
  await mkdir(dir, { recursive: true });
  const meter = createMeter(out);
  try {
    await finishExport(dir, boxes, await downloadAll(client, dir, filesOf(boxes), meter), new Date());
  } finally {
    meter.stop();
  }
  const bytes = filesOf(boxes).reduce((n, f) => n + (f.size ?? 0), 0);
  out.write(`exported ${names.join(', ')} to ${dir}: ${count(filesOf(boxes).length, 'file')}, ${formatBytes(bytes)}\n`);
}

/** `boxyard export`: writes boxes of a running daemon into a self-contained folder (an air gap's upstream). */
export function exportCommand(program: Command): void {
  withServerOptions(
    program
      .command('export <boxes...>')
      .description(
        'write boxes (ORG/BOX or ORG/BOX@VERSION) with their catalogs and a checksum manifest into a folder that boxyard import or mirror read',
      ),
  )
    .requiredOption('--out <dir>', 'the folder to write (new, empty, or an earlier export of the same boxes to resume)')
    .addOption(new Option('--versions <range>', 'a version constraint, e.g. ">= 1.0, < 2.0"').conflicts('latest'))
    .addOption(new Option('--latest <n>', 'only the newest N versions of each box').argParser(positiveInt))
    .option('--provider <name>', 'only this provider (repeat or comma-separate for several)', collect)
    .option('--architecture <arch>', 'only this architecture (repeat or comma-separate for several)', collect)
    .option('--dry-run', 'print what would be written and the space it needs; write nothing')
    .action(async (specs: string[], opts: ExportOptions) => runExport(specs, opts, process.stdout));
}
