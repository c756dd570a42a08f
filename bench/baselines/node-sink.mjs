// Baseline for uploads: a bare Node HTTP server that streams each PUT body to a file and fsyncs it,
// nothing else (no hashing, no database). Runs in its own process.
//   node node-sink.mjs PORT DIR
import { createServer } from 'node:http';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';

const [port, dir] = process.argv.slice(2);
let n = 0;

createServer(async (req, res) => {
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
}).listen(Number(port), '127.0.0.1');
