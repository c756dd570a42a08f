/**
 * Throughput and memory of hosted box files, as ratios against baselines measured in the same run:
 * upload vs a raw fsynced disk copy, download vs nginx serving the same file with sendfile, and the
 * daemon's peak resident memory while it streams (it must not grow with the file size).
 *
 *   npm run bench                 # 1024 MiB file
 *   BENCH_SIZE_MB=4096 npm run bench
 */
import { mkdtempSync, rmSync, appendFileSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDaemon, freePort } from '../test/helpers/spawn-daemon';
import { ADMIN } from '../test/helpers/daemon';
import { HttpClient } from '../test/helpers/http';
import { timed, makeFile, diskCopy, rssSampler, download, upload, startNginx } from './measure';

const sizeMb = Number(process.env.BENCH_SIZE_MB ?? 1024);
const work = mkdtempSync(join(tmpdir(), 'boxyard-bench-'));
const mbps = (seconds: number) => sizeMb / seconds;

async function prepareProvider(http: HttpClient) {
  const ok = (r: { status: number; text: string }, what: string) => { if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`); };
  ok(await http.post('/api/v1/boxes', { box: { username: ADMIN.username, name: 'bench', is_private: false } }), 'create box');
  ok(await http.post(`/api/v1/box/${ADMIN.username}/bench/versions`, { version: { version: '1.0.0' } }), 'create version');
  ok(await http.post(`/api/v1/box/${ADMIN.username}/bench/version/1.0.0/providers`, { provider: { name: 'virtualbox' } }), 'create provider');
  const prep = await http.get(`/api/v1/box/${ADMIN.username}/bench/version/1.0.0/provider/virtualbox/upload`);
  ok(prep, 'prepare upload');
  return prep.json.upload_path as string;
}

async function main() {
  const file = join(work, 'file.box');
  await makeFile(file, sizeMb);
  const size = statSync(file).size;

  const copySeconds = await timed(() => diskCopy(file, join(work, 'copy.box')));
  rmSync(join(work, 'copy.box'));

  const daemon = await spawnDaemon({ dataDir: join(work, 'data') });
  const rss = rssSampler(daemon.child.pid!);
  const idleRss = rss.current();
  try {
    const login = await new HttpClient(daemon.url).post('/api/v1/authenticate', { user: { login: ADMIN.username, password: ADMIN.password } });
    const http = new HttpClient(daemon.url, login.json.token);
    const uploadPath = await prepareProvider(http);
    const uploadSeconds = await timed(() => upload(uploadPath, file, size));
    const shown = await http.get(`/api/v1/box/${ADMIN.username}/bench/version/1.0.0/provider/virtualbox`);
    const downloadUrl = shown.json.download_url as string;
    let got = 0;
    const downloadSeconds = await timed(async () => { got = await download(downloadUrl); });
    if (got !== size) throw new Error(`downloaded ${got} of ${size} bytes`);
    const peakRss = rss.stop();

    chmodSync(work, 0o755);
    chmodSync(file, 0o644);
    const port = await freePort();
    const nginx = await startNginx(work, work, port);
    const nginxSeconds = await timed(() => download(`http://127.0.0.1:${port}/file.box`));
    nginx.kill();

    const rows = [
      ['upload (PUT, sha256 + fsync + rename)', mbps(uploadSeconds), 'raw fsynced disk copy', mbps(copySeconds)],
      ['download (GET vagrant.box)', mbps(downloadSeconds), 'nginx sendfile', mbps(nginxSeconds)],
    ] as const;
    const lines = [
      `### ${new Date().toISOString()} — ${sizeMb} MiB file, node ${process.version}`,
      '',
      '| operation | Boxyard MiB/s | baseline | baseline MiB/s | ratio |',
      '|---|---|---|---|---|',
      ...rows.map(([op, v, base, b]) => `| ${op} | ${v.toFixed(0)} | ${base} | ${b.toFixed(0)} | ${(v / b).toFixed(2)} |`),
      '',
      `Daemon resident memory: ${idleRss} MiB idle, ${peakRss} MiB peak while streaming ${sizeMb} MiB in and out.`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    appendFileSync(join(import.meta.dirname, 'RESULTS.md'), `${lines.join('\n')}\n`);
  } finally {
    await daemon.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
