/**
 * Mirroring from an upstream as users mirror: nginx (`sendfile on`) serves 8 box files of
 * BENCH_MIRROR_FILE_MB MiB each and a catalog listing them (one version, 8 providers, each with
 * its sha256), and the daemon copies them with a mirror job (`POST /api/boxyard/mirrors`,
 * `parallel: 4`, `run: true`), timed from the POST to the job's `done`. The baseline fetches the
 * same 8 files from the same nginx with `curl --parallel --parallel-max 4` into a folder on the same
 * disk and `sync`s them (the daemon fsyncs every file it stores). Aggregate MiB/s on both sides,
 * best of BENCH_MIRROR_ROUNDS rounds (default 2) taken in turn (ABBA).
 *
 * Every round the files get new content (their last 8 bytes), so the daemon's content-addressed
 * store never already holds one (it would not fetch it again). Each round's box and mirror are
 * deleted before the next; the blobs stay until the daemon's hourly garbage collection, so the
 * data folder grows by 8 files a round, which the disk check counts.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, mkdirSync, openSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import {
  adminToken,
  api,
  freePort,
  makeFile,
  now,
  run,
  since,
  sleep,
  stamp,
  startDaemon,
  startNginx,
  type Proc,
} from './measure';
import { rssMiB, rssSampler } from './proc-stats';
import { fmt, mibps, ratioRow, type Row } from './report';
import type { z } from 'zod';
import type { CreatedMirrorAnswer, JobJson } from '../daemon/src/contract/wire/mirror';

const FILES = 8;
const PARALLEL = 4;
const BOX = 'bench/mirror';
const PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'parallels', 'hyperv', 'qemu', 'docker', 'lxc'] as const;
/** The end of each file that a round's stamp changes: the sha256 of everything before it is worked out once. */
const TAIL = 64;
const GiB = 2 ** 30;

/** One upstream file: its path, and the sha256 state of all but its last TAIL bytes. */
interface Upstream {
  name: string;
  file: string;
  head: Hash;
}

/** sha256 of the file's first `size - TAIL` bytes, kept open so each round adds only its tail. */
async function hashHead(file: string, size: number): Promise<Hash> {
  const h = createHash('sha256');
  await pipeline(
    createReadStream(file, { end: size - TAIL - 1, highWaterMark: 1024 * 1024 }),
    new Writable({
      write(chunk: Buffer, _e, cb) {
        h.update(chunk);
        cb();
      },
    }),
  );
  return h;
}

/** The file's sha256 now, from its kept head and its last TAIL bytes as they are on disk. */
function sha256(u: Upstream, size: number): string {
  const tail = Buffer.alloc(TAIL);
  const fd = openSync(u.file, 'r');
  try {
    readSync(fd, tail, 0, TAIL, size - TAIL);
  } finally {
    closeSync(fd);
  }
  return u.head.copy().update(tail).digest('hex');
}

/** Free bytes on the disk holding `dir` (`df`). */
async function freeBytes(dir: string): Promise<number> {
  const out = await run('df', ['-B1', '--output=avail', dir]);
  return Number(out.trim().split('\n').pop());
}

const seconds = (from: string | null, to: string | null) =>
  from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : NaN;

type CreatedMirror = z.infer<typeof CreatedMirrorAnswer>;
interface CatalogProvider {
  name: string;
  checksum?: string;
  checksum_type?: string;
}

interface DaemonRound {
  mibps: number;
  seconds: number;
  jobSeconds: number;
  peakRss: number;
  parallel: unknown;
}

/** One mirror job through the API, from the POST to `done`, checked: 1 version, 8 providers, each with its sha256. */
async function daemonRound(
  base: string,
  token: string,
  catalogUrl: string,
  sums: Map<string, string>,
  total: number,
  pid: number,
): Promise<DaemonRound> {
  const rss = rssSampler(pid);
  const t0 = now();
  let created: CreatedMirror | undefined;
  let job: JobJson | null | undefined;
  let took: number | undefined;
  let peakRss: number;
  try {
    created = await api<CreatedMirror>(base, 'POST', '/api/boxyard/mirrors', {
      token,
      body: { mirror: { upstream: { url: catalogUrl }, source: BOX, parallel: PARALLEL, run: true } },
    });
    job = created.job;
    const deadline = Date.now() + 15 * 60_000;
    while (job && (job.state === 'queued' || job.state === 'running')) {
      if (Date.now() > deadline) throw new Error(`mirror job ${job.id} not done after 15 minutes: ${job.message}`);
      await sleep(50);
      job = (await api<{ job: JobJson }>(base, 'GET', `/api/boxyard/mirror-jobs/${job.id}`, { token })).job;
    }
    took = since(t0);
  } finally {
    peakRss = rss.stop();
  }
  if (job?.state !== 'done')
    throw new Error(
      `the mirror job ended ${job?.state ?? 'without a job'}: ${job?.message ?? JSON.stringify(created)}`,
    );
  const published = JSON.stringify(job.published);
  if (
    published !== JSON.stringify([{ box: BOX, versions: ['1.0.0'] }]) ||
    job.files_done !== FILES ||
    job.bytes_done !== total
  ) {
    throw new Error(
      `the mirror job published ${published}, ${job.files_done} files, ${job.bytes_done} bytes (expected ${BOX} 1.0.0, ${FILES} files, ${total} bytes)`,
    );
  }
  const catalog = await api<{ versions?: Array<{ providers: CatalogProvider[] }> }>(base, 'GET', `/${BOX}`, { token });
  const providers = catalog.versions?.length === 1 ? catalog.versions[0].providers : [];
  const wrong = [...sums].filter(
    ([name, sum]) => !providers.some((p) => p.name === name && p.checksum_type === 'sha256' && p.checksum === sum),
  );
  if (providers.length !== FILES || wrong.length) {
    throw new Error(
      `the daemon's catalog of ${BOX} lists ${providers.length} providers in ${catalog.versions?.length} versions; wrong or missing sha256: ${wrong.map(([n]) => n).join(', ') || 'none'}`,
    );
  }
  // The next round copies all 8 files again: into a box that does not exist yet, by a new mirror.
  await api(base, 'DELETE', `/api/boxyard/mirrors/${created.mirror.id}`, { token });
  await api(base, 'DELETE', `/api/v1/box/${BOX}`, { token });
  return {
    mibps: total / 2 ** 20 / took,
    seconds: took,
    jobSeconds: seconds(job.started_at, job.finished_at),
    peakRss,
    parallel: created.mirror.parallel,
  };
}

/** `curl --parallel --parallel-max 4` of the 8 files into `dir`, then `sync` of them: aggregate MiB/s (wall clock). */
async function curlRound(dir: string, urls: string[], size: number): Promise<{ mibps: number; seconds: number }> {
  const files = urls.map((_, i) => join(dir, `f${i + 1}.box`));
  const args = [
    '-sS',
    '--parallel',
    '--parallel-max',
    String(PARALLEL),
    '-w',
    '%{http_code} %{size_download}\\n',
    ...urls.flatMap((u, i) => ['-o', files[i], u]),
  ];
  try {
    const t0 = now();
    const out = await run('curl', args);
    await run('sync', files);
    const took = since(t0);
    const results = out.trim().split('\n');
    const bad = results.filter((l) => l !== `200 ${size}`);
    if (results.length !== FILES || bad.length)
      throw new Error(
        `curl --parallel: ${results.length} transfers, ${bad.length} not "200 ${size}": ${bad.slice(0, 3).join('; ')}`,
      );
    return { mibps: (FILES * size) / 2 ** 20 / took, seconds: took };
  } finally {
    for (const f of files) rmSync(f, { force: true });
    // The unlinks' journal commit (and this disk's online discard) before whatever is measured next.
    await run('sync', ['-f', dir]);
  }
}

export async function mirrorFromUpstream(work: string): Promise<Row[]> {
  const t0 = now();
  const mb = Number(process.env.BENCH_MIRROR_FILE_MB ?? 512);
  const rounds = Math.max(1, Number(process.env.BENCH_MIRROR_ROUNDS ?? 2));
  const size = mb * 2 ** 20;
  const total = FILES * size;
  const upDir = join(work, 'mirror-upstream');
  const curlDir = join(work, 'mirror-curl');
  const dataDir = join(work, 'mirror-data');
  // The upstream files, curl's copies (removed after each round), and the daemon's copies of every
  // round (a deleted box's files stay until its garbage collection), plus the daemon's reserve.
  const reserve = Number(process.env.BOXYARD_DISK_RESERVE_MB ?? 512) * 2 ** 20;
  const need = total * (2 + rounds) + reserve + GiB;
  const free = await freeBytes(work);
  if (free < need) {
    throw new Error(
      `not enough free disk: the mirror part needs ${fmt(need / GiB, 1)} GiB, the disk of ${work} has ${fmt(free / GiB, 1)} GiB free; lower BENCH_MIRROR_FILE_MB or BENCH_MIRROR_ROUNDS (it holds ${FILES} × ${fmt(mb)} MiB for the upstream, as much for curl's copies and for the daemon's in each of ${rounds} rounds, plus the daemon's ${fmt(reserve / 2 ** 20)} MiB disk reserve and 1 GiB)`,
    );
  }
  const procs: Proc[] = [];
  try {
    mkdirSync(upDir);
    mkdirSync(curlDir);
    process.stderr.write(`mirror: writing ${FILES} files of ${fmt(mb)} MiB\n`);
    const ups: Upstream[] = [];
    for (let i = 0; i < FILES; i++) {
      const file = join(upDir, `f${i + 1}.box`);
      await makeFile(file, mb);
      ups.push({ name: PROVIDERS[i], file, head: await hashHead(file, size) });
    }
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const catalogFile = join(upDir, 'mirror.json');
    const urls = ups.map((_, i) => `${origin}/f${i + 1}.box`);
    // A catalog URL ending in .json: a "catalog" upstream, as a box's metadata.json is.
    const catalogUrl = `${origin}/${BOX}.json`;
    const writeCatalog = (sums: Map<string, string>) =>
      writeFileSync(
        catalogFile,
        JSON.stringify({
          name: BOX,
          versions: [
            {
              version: '1.0.0',
              status: 'active',
              providers: ups.map((u, i) => ({
                name: u.name,
                architecture: 'amd64',
                url: urls[i],
                checksum: sums.get(u.name),
                checksum_type: 'sha256',
              })),
            },
          ],
        }),
      );
    writeCatalog(new Map());
    const nginxDir = join(work, 'mirror-nginx');
    mkdirSync(nginxDir);
    // The catalog first: startNginx waits for its first path to answer.
    procs.push(
      await startNginx(nginxDir, port, {
        [`/${BOX}.json`]: catalogFile,
        ...Object.fromEntries(ups.map((u, i) => [`/f${i + 1}.box`, u.file])),
      }),
    );
    const daemon = await startDaemon(dataDir);
    procs.push(daemon);
    const token = await adminToken(daemon.url);
    await sleep(1_000);
    const idleRss = rssMiB(daemon.pid);

    const d: DaemonRound[] = [];
    const c: Array<{ mibps: number; seconds: number }> = [];
    for (let r = 0; r < rounds; r++) {
      // New content every round: the last 8 bytes of each file (before anything reads it).
      const sums = new Map(
        ups.map((u) => {
          stamp(u.file, r + 1, size - 8);
          return [u.name, sha256(u, size)] as const;
        }),
      );
      writeCatalog(sums);
      const ours = async () => {
        process.stderr.write(`mirror: round ${r + 1}/${rounds}, Boxyard mirror job\n`);
        d.push(
          await daemonRound(daemon.url, token, catalogUrl, sums, total, daemon.pid).catch((err: unknown) => {
            throw new Error(
              `${err instanceof Error ? err.message : String(err)}\ndaemon log (last lines):\n${daemon.output().slice(-3000)}`,
            );
          }),
        );
      };
      const base = async () => {
        process.stderr.write(`mirror: round ${r + 1}/${rounds}, curl --parallel\n`);
        c.push(await curlRound(curlDir, urls, size));
      };
      for (const step of r % 2 ? [base, ours] : [ours, base]) await step();
    }

    const best = (xs: number[]) => Math.max(...xs);
    const dBest = best(d.map((x) => x.mibps));
    const cBest = best(c.map((x) => x.mibps));
    const label = mb % 1024 ? `${fmt(mb)} MiB` : `${fmt(mb / 1024)} GiB`;
    const list = (xs: number[], digits = 0) => xs.map((x) => fmt(x, digits)).join(', ');
    const parallel = d[0]?.parallel;
    return [
      {
        ...ratioRow(
          `mirror: ${FILES} × ${label}, parallel ${PARALLEL}`,
          mibps(dBest),
          `curl --parallel-max ${PARALLEL} + sync, from nginx sendfile: ${mibps(cBest)}`,
          dBest,
          cBest,
          0.8,
        ),
        note: [
          `MiB/s per round: Boxyard ${list(d.map((x) => x.mibps))}; curl ${list(c.map((x) => x.mibps))}`,
          `seconds per round: POST to done ${list(
            d.map((x) => x.seconds),
            1,
          )} (the job's started_at → finished_at ${list(
            d.map((x) => x.jobSeconds),
            1,
          )}); curl + sync ${list(
            c.map((x) => x.seconds),
            1,
          )}`,
          `daemon RSS idle ${fmt(idleRss)} MiB, peak during the mirror jobs ${fmt(best(d.map((x) => x.peakRss)))} MiB`,
          `the created mirror shows parallel: ${parallel === undefined ? 'absent (this daemon does not know the field)' : JSON.stringify(parallel)}`,
          `the part took ${fmt(since(t0))} s`,
        ].join('; '),
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
    for (const dir of [upDir, curlDir, dataDir]) rmSync(dir, { recursive: true, force: true });
  }
}
