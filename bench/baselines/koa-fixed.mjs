// Baseline for the API: Koa answering a fixed JSON, in its own process. Each file argument is an
// endpoint's real answer; GET /N answers the N-th one as the same text every time (the ceiling any
// Koa handler has: a daemon that keeps its answers as bytes can come near it), so the ceiling has
// the same body size as the daemon's answer. Independent runs measure against such a ceiling. With
// one file, every other path (and method) gets it too: the agents' reports (bench/agents.ts).
// With BASELINE_TLS_CERT and BASELINE_TLS_KEY (PEM files), over HTTPS as Node serves it out of the box.
//   node koa-fixed.mjs PORT BODY.json…
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';

const [port, ...files] = process.argv.slice(2);
const bodies = files.map((f) => JSON.stringify(JSON.parse(readFileSync(f, 'utf8'))));

const app = new Koa();
app.use((ctx) => {
  if (ctx.path === '/healthz') {
    ctx.body = { status: 'ok' };
    return;
  }
  const body = bodies[Number(ctx.path.slice(1))] ?? (bodies.length === 1 ? bodies[0] : undefined);
  if (body === undefined) {
    ctx.status = 404;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = body;
});
const tls = process.env.BASELINE_TLS_CERT && {
  cert: readFileSync(process.env.BASELINE_TLS_CERT),
  key: readFileSync(process.env.BASELINE_TLS_KEY),
};
const server = tls
  ? createServer(tls, app.callback()).listen(Number(port), '127.0.0.1')
  : app.listen(Number(port), '127.0.0.1');
// As long as the daemon keeps an idle connection (http/guards/connections.ts): with Node's 5 s, each
// agent's report every 10 s would come on a new connection here and on the same one there.
server.keepAliveTimeout = 65_000;
// An exit on SIGTERM, so that a CPU profile (--cpu-prof, BENCH_CPU_PROF) is written.
process.on('SIGTERM', () => process.exit(0));
