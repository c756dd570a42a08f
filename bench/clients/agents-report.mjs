// 1,000 Boxyard agents reporting their status, in one process of their own: agent i reports at
// i/n of the interval and then every interval, each agent on a keep-alive connection of its own,
// as a real agent does (its fetch keeps the connection for the daemon's `Keep-Alive: timeout=`,
// which outlasts the ping interval), from an address of its own. BENCH_AGENT_NEW_CONNECTIONS=1: a new connection
// per report.
//   node agents-report.mjs URL AGENT_TOKEN IDS.json INTERVAL_S DURATION_S
// Prints {"sent","ok","failed","stop","errors","p99_ms","steady_p99_ms"} as JSON when done
// (errors: failures by status or error code; steady: the reports after the first interval;
// p99_by_interval_ms: each interval's p99).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [url, token, idsFile, intervalS, durationS] = process.argv.slice(2);
const ids = JSON.parse(readFileSync(idsFile, 'utf8'));
const interval = Number(intervalS) * 1000;
const end = Date.now() + Number(durationS) * 1000;
const stats = { sent: 0, ok: 0, failed: 0, stop: 0, errors: {} };
const latencies = [];
// After the first interval every agent has connected once: reports from then on show the steady state.
const steadyFrom = Date.now() + interval;
const steady = [];
const startedAt = Date.now();
/** Latencies per interval, for p99 by interval. */
const windows = [];
/** Latencies per second of the first interval, when every agent connects. */
const seconds = [];
/** Adds a latency to the `i`th list of `lists`, made with its first. */
function addTo(lists, i, latency) {
  lists[i] ??= [];
  lists[i].push(latency);
}

const fresh = process.env.BENCH_AGENT_NEW_CONNECTIONS === '1';
// Each agent from an address of its own, as agents on the machines of a LAN are (agent i from 127.10.x.y, every
// one of them this machine's own): the daemon's per-address cap of busy connections, a slowloris defence that the
// flood part measures, is not what 10,000 machines meet. BENCH_AGENT_ONE_ADDRESS=1: every agent from 127.0.0.1.
const oneAddress = process.env.BENCH_AGENT_ONE_ADDRESS === '1';
const addressOf = (i) => (oneAddress ? undefined : `127.10.${Math.floor(i / 250)}.${(i % 250) + 1}`);
const from = new Map(ids.map((id, i) => [id, addressOf(i)]));
const connections = new Map(
  ids.map((id) => [id, fresh ? false : new Agent({ keepAlive: true, maxSockets: 1, localAddress: from.get(id) })]),
);

function report(id) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const body = JSON.stringify({ status: 'idle' });
    const req = request(
      `${url}/api/agent/agents/${encodeURIComponent(id)}/status`,
      {
        method: 'POST',
        agent: connections.get(id),
        localAddress: from.get(id),
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => {
          latencies.push(performance.now() - t0);
          if (Date.now() >= steadyFrom) steady.push(performance.now() - t0);
          addTo(windows, Math.floor((Date.now() - startedAt) / interval), performance.now() - t0);
          if (Date.now() < steadyFrom)
            addTo(seconds, Math.floor((Date.now() - startedAt) / 1000), performance.now() - t0);
          if (res.statusCode === 200) stats.ok++;
          else {
            stats.failed++;
            stats.errors[res.statusCode] = (stats.errors[res.statusCode] ?? 0) + 1;
          }
          if (text.includes('"stop"')) stats.stop++;
          resolve();
        });
      },
    );
    req.on('error', (err) => {
      stats.failed++;
      stats.errors[err.code] = (stats.errors[err.code] ?? 0) + 1;
      resolve();
    });
    stats.sent++;
    req.end(body);
  });
}

const pending = new Set();
ids.forEach((id, i) => {
  const tick = () => {
    if (Date.now() >= end) return;
    const p = report(id);
    pending.add(p);
    p.then(() => pending.delete(p));
    setTimeout(tick, interval);
  };
  setTimeout(tick, (i / ids.length) * interval);
});

setTimeout(
  async () => {
    await Promise.all(pending);
    const p99 = (xs) => {
      xs.sort((a, b) => a - b);
      return xs.length ? Math.round(xs[Math.floor(xs.length * 0.99)] * 10) / 10 : 0;
    };
    process.stdout.write(
      `${JSON.stringify({ ...stats, p99_ms: p99(latencies), steady_p99_ms: p99(steady), p99_by_interval_ms: [...windows].map((w) => p99(w ?? [])), first_interval_p99_by_second_ms: [...seconds].map((w) => p99(w ?? [])) })}\n`,
    );
    process.exit(0);
  },
  end - Date.now() + 50,
);
