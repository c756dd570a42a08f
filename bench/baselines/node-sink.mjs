// Baseline for uploads: a bare Node HTTP server that streams each PUT body to a file and fsyncs it,
// nothing else (no hashing, no database). Runs in its own process. With BASELINE_TLS_CERT and
// BASELINE_TLS_KEY (PEM files), over HTTPS as Node serves it out of the box.
//   node node-sink.mjs PORT DIR
import { createServer } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import { createWriteStream, readFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';

const [port, dir] = process.argv.slice(2);
let n = 0;

const tls = process.env.BASELINE_TLS_CERT && {
  cert: readFileSync(process.env.BASELINE_TLS_CERT),
  key: readFileSync(process.env.BASELINE_TLS_KEY),
};
const handler = async (req, res) => {
  if (req.method !== 'PUT') {
    res.writeHead(req.url === '/healthz' ? 200 : 404).end();
    return;
  }
  const file = join(dir, `sink-${process.pid}-${n++}`);
  try {
    await pipeline(req, createWriteStream(file));
    const fh = await open(file, 'r');
    await fh.sync();
    await fh.close();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  } catch (err) {
    res.writeHead(500).end(String(err));
  } finally {
    await rm(file, { force: true });
  }
};
(tls ? createSecureServer(tls, handler) : createServer(handler)).listen(Number(port), '127.0.0.1');
