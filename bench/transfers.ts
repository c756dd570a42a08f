/**
 * Transfers with curl, as vagrant and users move box files: downloads (1 stream, 8 parallel
 * streams, a Range request) against nginx `sendfile` serving the very same blob file, uploads
 * with `curl -T` against a bare Node server that streams to a file and fsyncs
 * (baselines/node-sink.mjs), and the daemon's resident memory idle and at its peak meanwhile.
 * Each figure is the best of BENCH_ROUNDS rounds (default 2; uploads BENCH_UPLOAD_ROUNDS, default
 * 3: the upload goal is judged on the best of 3), taken alternately with its baseline.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ADMIN,
  adminToken,
  api,
  freePort,
  makeFile,
  now,
  run,
  since,
  sleep,
  stamp,
  startBaseline,
  startDaemon,
  startNginx,
  type Proc,
} from './measure';
import { rssMiB, rssSampler } from './proc-stats';
import { fmt, mibps, ratioRow, type Row } from './report';

interface Curl {
  status: number;
  bytes: number;
  seconds: number;
}

/** One curl process; `-w` reports what curl itself measured. */
async function curl(args: string[]): Promise<Curl> {
  const out = await run('curl', [
    '-sS',
    '-L',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{size_download} %{size_upload} %{time_total}',
    ...args,
  ]);
  const [status, down, up, t] = out.trim().split(' ').map(Number);
  return { status, bytes: Math.max(down, up), seconds: t };
}

/** MiB/s of one download, checking the status and the byte count; `extra`: more curl options (TLS). */
async function download(
  url: string,
  expect: { status: number; bytes: number },
  range?: string,
  extra: string[] = [],
): Promise<number> {
  const r = await curl([...extra, ...(range ? ['-r', range] : []), url]);
  if (r.status !== expect.status || r.bytes !== expect.bytes)
    throw new Error(
      `GET ${url}${range ? ` (range ${range})` : ''}: ${r.status}, ${r.bytes} bytes (expected ${expect.status}, ${expect.bytes})`,
    );
  return r.bytes / 2 ** 20 / r.seconds;
}

/** Aggregate MiB/s of `n` curl processes downloading the whole file at once (wall clock). */
async function parallel(url: string, n: number, size: number, extra: string[] = []): Promise<number> {
  const t0 = now();
  const all = await Promise.all(Array.from({ length: n }, () => curl([...extra, url])));
  const s = since(t0);
  for (const r of all)
    if (r.status !== 200 || r.bytes !== size) throw new Error(`parallel GET ${url}: ${r.status}, ${r.bytes} bytes`);
  return (n * size) / 2 ** 20 / s;
}

async function upload(url: string, file: string, size: number, extra: string[] = []): Promise<number> {
  const r = await curl([...extra, '-T', file, url]);
  if (r.status >= 300 || r.bytes !== size) throw new Error(`PUT ${url}: ${r.status}, ${r.bytes} bytes sent`);
  return r.bytes / 2 ** 20 / r.seconds;
}

/** Where the daemon stores the blob of this digest (blobs/sha256/ab/abcd…). */
export const blobFile = (dataDir: string, sha256: string) =>
  join(dataDir, 'blobs', 'sha256', sha256.slice(0, 2), sha256);

/** Hosted providers to upload to, one upload URL per round (each URL takes one upload). */
export async function prepare(base: string, token: string, rounds: number, send?: typeof fetch): Promise<string[]> {
  const box = `/api/v1/box/${ADMIN.username}/bench`;
  await api(base, 'POST', '/api/v1/boxes', {
    token,
    send,
    body: { box: { username: ADMIN.username, name: 'bench', is_private: false } },
  });
  const uploads: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const v = `1.0.${i}`;
    await api(base, 'POST', `${box}/versions`, { token, send, body: { version: { version: v } } });
    await api(base, 'POST', `${box}/version/${v}/providers`, {
      token,
      send,
      body: { provider: { name: 'virtualbox' } },
    });
    uploads.push(
      (
        await api<{ upload_path: string }>(base, 'GET', `${box}/version/${v}/provider/virtualbox/upload`, {
          token,
          send,
        })
      ).upload_path,
    );
  }
  return uploads;
}

export const best = (xs: number[]) => Math.max(...xs);

/**
 * Upload rounds (BENCH_UPLOAD_ROUNDS, default 3), here and in the tls part: the upload goal is the best of 3. More
 * than downloads, since each ends in a 1 GiB fsync whose speed on this disk varies from upload to upload (daemon
 * 320-573, bare Node 213-577 MiB/s in six rounds of each).
 */
export const uploadRoundCount = () => Math.max(1, Number(process.env.BENCH_UPLOAD_ROUNDS ?? 3));

/**
 * `rounds` uploads of `file` to Boxyard (one upload URL each) and to the sink, in turn: each round
 * with new content (its first 8 bytes), since identical bytes again would make the daemon drop its
 * staged copy of content it already stores, an unlink that a new box never pays (on this disk, ext4
 * mounted with online `discard`, unlinking 1 GiB takes 0.18 s); and each side first in turn (ABBA),
 * so neither always follows the other's fsync. MiB/s per round. `curl`: more options (TLS).
 */
export async function uploadRounds(o: {
  part: string;
  uploads: string[];
  sinkUrl: string;
  file: string;
  size: number;
  rounds: number;
  curl?: string[];
}) {
  const up = { daemon: [] as number[], base: [] as number[] };
  for (let i = 0; i < o.rounds; i++) {
    process.stderr.write(`${o.part}: upload round ${i + 1}/${o.rounds}\n`);
    stamp(o.file, i);
    const ours = () => upload(o.uploads[i], o.file, o.size, o.curl).then((x) => up.daemon.push(x));
    const base = () => upload(`${o.sinkUrl}/file.box`, o.file, o.size, o.curl).then((x) => up.base.push(x));
    for (const step of i % 2 ? [base, ours] : [ours, base]) await step();
  }
  return up;
}

/**
 * `rounds` of downloads of the whole file (1 stream, then 8 at once) and, with `range`, of its second half: Boxyard's
 * URL and the baseline's in turn. MiB/s per round.
 */
export async function downloadRounds(o: {
  part: string;
  url: string;
  baseUrl: string;
  size: number;
  rounds: number;
  range?: boolean;
  curl?: string[];
}) {
  const half = Math.floor(o.size / 2);
  const d = { one: [] as number[], eight: [] as number[], range: [] as number[] };
  const n = { one: [] as number[], eight: [] as number[], range: [] as number[] };
  for (let i = 0; i < o.rounds; i++) {
    process.stderr.write(`${o.part}: download round ${i + 1}/${o.rounds}\n`);
    for (const [to, url] of [
      [d, o.url],
      [n, o.baseUrl],
    ] as const)
      to.one.push(await download(url, { status: 200, bytes: o.size }, undefined, o.curl));
    for (const [to, url] of [
      [d, o.url],
      [n, o.baseUrl],
    ] as const)
      to.eight.push(await parallel(url, 8, o.size, o.curl));
    if (!o.range) continue;
    for (const [to, url] of [
      [d, o.url],
      [n, o.baseUrl],
    ] as const)
      to.range.push(await download(url, { status: 206, bytes: o.size - half }, `${half}-`, o.curl));
  }
  return { d, n };
}

export async function transfers(work: string): Promise<Row[]> {
  const sizeMb = Number(process.env.BENCH_SIZE_MB ?? 1024);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const upRounds = uploadRoundCount();
  const file = join(work, 'file.box');
  process.stderr.write(`transfers: writing a ${sizeMb} MiB file\n`);
  await makeFile(file, sizeMb);
  const size = statSync(file).size;
  mkdirSync(join(work, 'sink'));

  const daemon = await startDaemon(join(work, 'data'));
  const procs: Proc[] = [daemon];
  try {
    await sleep(2_000);
    const idleRss = rssMiB(daemon.pid);
    const token = await adminToken(daemon.url);
    const uploads = await prepare(daemon.url, token, Math.max(rounds, upRounds));
    const sink = await startBaseline('node-sink.mjs', [join(work, 'sink')]);
    procs.push(sink);
    const rss = rssSampler(daemon.pid);

    const up = await uploadRounds({ part: 'transfers', uploads, sinkUrl: sink.url, file, size, rounds: upRounds });
    // Releasing makes the box file downloadable without a token, as `vagrant box add` fetches it.
    await api(daemon.url, 'PUT', `/api/v1/box/${ADMIN.username}/bench/version/1.0.0/release`, { token });
    // Downloads fetch the first round's box; nginx serves its blob file. A hosted box advertises the daemon's sha256.
    const shown = await api<{ checksum?: unknown; download_url: string }>(
      daemon.url,
      'GET',
      `/api/v1/box/${ADMIN.username}/bench/version/1.0.0/provider/virtualbox`,
      { token },
    );
    if (typeof shown.checksum !== 'string')
      throw new Error(`the uploaded box advertises no sha256: ${JSON.stringify(shown)}`);
    const url = shown.download_url;
    const upPeak = rss.stop();
    const rssDown = rssSampler(daemon.pid);

    const port = await freePort();
    const nginxDir = join(work, 'nginx');
    mkdirSync(nginxDir);
    const nginx = await startNginx(nginxDir, port, { '/file.box': blobFile(join(work, 'data'), shown.checksum) });
    procs.push(nginx);
    const nginxUrl = `http://127.0.0.1:${port}/file.box`;
    const { d, n } = await downloadRounds({ part: 'transfers', url, baseUrl: nginxUrl, size, rounds, range: true });
    const downPeak = rssDown.stop();
    const peakRss = Math.max(upPeak, downPeak);

    const label = sizeMb % 1024 ? `${fmt(sizeMb)} MiB` : `${fmt(sizeMb / 1024)} GiB`;
    const row = (m: string, v: number[], b: number[], base: string, min: number) =>
      ratioRow(m, mibps(best(v)), `${base} ${mibps(best(b))}`, best(v), best(b), min);
    return [
      row(`download ${label} with curl, 1 stream`, d.one, n.one, 'nginx sendfile', 0.8),
      row('download, 8 parallel curl streams (aggregate)', d.eight, n.eight, 'nginx sendfile', 0.8),
      row('download, Range request (`curl -r N-`, second half)', d.range, n.range, 'nginx sendfile', 0.8),
      {
        ...row(
          `upload ${label} with curl -T (hashed, fsynced)`,
          up.daemon,
          up.base,
          'bare Node stream-to-file + fsync',
          0.7,
        ),
        note: `MiB/s per round: Boxyard ${up.daemon.map((x) => fmt(x)).join(', ')}; bare Node ${up.base.map((x) => fmt(x)).join(', ')}`,
      },
      {
        measure: 'daemon RSS idle / peak during transfers (uploads, downloads)',
        value: `${fmt(idleRss)} / ${fmt(peakRss)} MiB (${fmt(upPeak)}, ${fmt(downPeak)})`,
        baseline: '—',
        ratio: null,
        goal: '< 100 / < 150 MiB',
        pass: idleRss < 100 && peakRss < 150,
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}
