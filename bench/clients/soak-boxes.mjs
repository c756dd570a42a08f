// Uploads and downloads of real box files, in a process of their own (the soak part). Every
// UPLOAD_S seconds a new version of ORG/BOX with a new file of SIZE_MB MiB (random content): the
// version, its provider with the file's sha256 given as Vagrant Cloud's provider checksum, the
// upload to the upload URL the daemon hands out, the release; then the provider must show that
// checksum. Every DOWNLOAD_S seconds one released version, taken in turn, is downloaded through
// its download_url and its sha256 compared with the uploaded file's. At the end every uploaded
// version must be in the box's vagrant catalog with its checksum.
//   node soak-boxes.mjs URL TOKEN ORG BOX SIZE_MB UPLOAD_S DOWNLOAD_S DURATION_S
// Prints {"uploads","downloads","failed","bad_checksums","errors","mib_up","mib_down","problems"} as JSON when done.
import { createHash, randomBytes } from 'node:crypto';

const [url, token, org, box, sizeMb, uploadS, downloadS, durationS] = process.argv.slice(2);
const size = Number(sizeMb) * 2 ** 20;
const end = Date.now() + Number(durationS) * 1000;
const stats = { uploads: 0, downloads: 0, failed: 0, bad_checksums: 0, errors: {}, mib_up: 0, mib_down: 0 };
/** Released versions and their files' sha256, in upload order. */
const released = [];
const auth = { authorization: `Bearer ${token}` };
const base = `/api/v1/box/${org}/${box}`;
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

function fail(why) {
  stats.failed++;
  stats.errors[why] = (stats.errors[why] ?? 0) + 1;
}

/** A JSON request that must answer 200; its answer. */
async function call(method, path, body) {
  const res = await fetch(path.startsWith('http') ? path : url + path, {
    method,
    headers: { ...auth, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path.replace(url, '')}: ${res.status}`);
  return text ? JSON.parse(text) : undefined;
}

async function upload(n) {
  const version = `1.0.${n}`;
  const file = randomBytes(size);
  const checksum = sha256(file);
  await call('POST', `${base}/versions`, { version: { version } });
  await call('POST', `${base}/version/${version}/providers`, {
    provider: { name: 'virtualbox', checksum, checksum_type: 'sha256' },
  });
  const up = await call('GET', `${base}/version/${version}/provider/virtualbox/upload`);
  const res = await fetch(new URL(up.upload_path, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: file,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`PUT upload_path: ${res.status}`);
  await call('PUT', `${base}/version/${version}/release`);
  const shown = await call('GET', `${base}/version/${version}/provider/virtualbox`);
  stats.uploads++;
  stats.mib_up += size / 2 ** 20;
  if (shown.checksum !== checksum) {
    stats.bad_checksums++;
    throw new Error(`version ${version} shows checksum ${shown.checksum}`);
  }
  released.push({ version, checksum, downloadUrl: shown.download_url });
}

async function download(k) {
  const v = released[k % released.length];
  const res = await fetch(v.downloadUrl, { headers: auth });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET download_url: ${res.status}`);
  stats.downloads++;
  stats.mib_down += bytes.length / 2 ** 20;
  if (sha256(bytes) !== v.checksum) {
    stats.bad_checksums++;
    throw new Error(`version ${v.version}: downloaded ${bytes.length} bytes of another sha256`);
  }
}

/** Runs `step(n)` every `seconds` until the end, one at a time (a slow step delays the next). */
async function every(seconds, step) {
  for (let n = 1; Date.now() < end; n++) {
    const t0 = Date.now();
    await step(n).catch((err) => fail(err.cause?.code ?? err.message));
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(end - Date.now(), t0 + seconds * 1000 - Date.now()))));
  }
}

await Promise.all([
  every(Number(uploadS), upload),
  every(Number(downloadS), (k) => (released.length ? download(k) : Promise.resolve())),
]);

// The end state: every released version in the catalog vagrant reads, with its checksum.
const problems = [];
try {
  const catalog = await call('GET', `/${org}/${box}`);
  const shown = new Map(catalog.versions.map((v) => [v.version, v.providers[0]?.checksum]));
  for (const v of released)
    if (shown.get(v.version) !== v.checksum) problems.push(`${v.version}: catalog shows ${shown.get(v.version)}`);
} catch (err) {
  problems.push(`the catalog: ${err.message}`);
}
process.stdout.write(`${JSON.stringify({ ...stats, problems: problems.slice(0, 5), versions: released.length })}\n`);
