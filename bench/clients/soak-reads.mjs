// Catalog and search reads at a steady pace, in a process of their own (the soak part): one
// request every 1/RATE s, taking in turn the vagrant catalog of ORG/BOX, its box API, and two
// searches; each answer must be a 200 whose JSON looks right (the catalog's versions, the box's
// name, a search's hits), anything else counts as failed.
//   node soak-reads.mjs URL TOKEN ORG BOX RATE DURATION_S
// Prints {"sent","ok","failed","errors","p99_ms"} as JSON when done.
const [url, token, org, box, rateS, durationS] = process.argv.slice(2);
const every = 1000 / Number(rateS);
const end = Date.now() + Number(durationS) * 1000;
const stats = { sent: 0, ok: 0, failed: 0, errors: {} };
const latencies = [];

/** Each read: its path and what its answer must show. */
const READS = [
  [`/${org}/${box}`, (j) => Array.isArray(j.versions) && j.versions.length > 0],
  [`/api/v1/box/${org}/${box}`, (j) => j.name === box],
  ['/api/v1/search?q=box-77', (j) => Array.isArray(j.boxes) && j.boxes.length > 0],
  ['/api/v1/search?q=box&sort=downloads', (j) => Array.isArray(j.boxes) && j.boxes.length > 0],
];

function fail(why) {
  stats.failed++;
  stats.errors[why] = (stats.errors[why] ?? 0) + 1;
}

async function read(i) {
  const [path, looksRight] = READS[i % READS.length];
  stats.sent++;
  const t0 = performance.now();
  try {
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    const text = await res.text();
    latencies.push(performance.now() - t0);
    if (res.status !== 200) return fail(`${path}: ${res.status}`);
    if (!looksRight(JSON.parse(text))) return fail(`${path}: unexpected answer`);
    stats.ok++;
  } catch (err) {
    fail(`${path}: ${err.cause?.code ?? err.message}`);
  }
}

const pending = new Set();
let i = 0;
const t0 = Date.now();
while (Date.now() < end) {
  const p = read(i++);
  pending.add(p);
  p.then(() => pending.delete(p));
  // A steady pace: the next read at its own time, whatever this one took.
  await new Promise((r) => setTimeout(r, Math.max(0, t0 + i * every - Date.now())));
}
await Promise.all(pending);
latencies.sort((a, b) => a - b);
const p99 = latencies.length ? Math.round(latencies[Math.floor(latencies.length * 0.99)] * 10) / 10 : 0;
process.stdout.write(`${JSON.stringify({ ...stats, p99_ms: p99 })}\n`);
