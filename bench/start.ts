/**
 * Start on the large database: spawn (`node bin/boxyard.mjs serve --data DIR`, as users start it)
 * to the first `/healthz` 200 (polled every 5 ms), and the resident memory 3 s after (what the start
 * leaves) and once it has idled for BENCH_IDLE_SECONDS (30: V8 gives back the heap the start grew
 * after some 15 s without requests, from 97 to 82 MiB here). The median of BENCH_START_RUNS starts (default 3).
 */
import { sleep, startDaemon } from './measure';
import { rssMiB } from './proc-stats';
import { fmt, type Row } from './report';
import type { Seed } from './seed';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function startup(s: Seed): Promise<Row[]> {
  const runs = Math.max(1, Number(process.env.BENCH_START_RUNS ?? 3));
  const starts: number[] = [];
  const rss: number[] = [];
  const settled: number[] = [];
  const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
  for (let i = 0; i < runs; i++) {
    process.stderr.write(`start: run ${i + 1}/${runs}\n`);
    const daemon = await startDaemon(s.dataDir);
    try {
      starts.push(daemon.startSeconds);
      await sleep(3_000);
      rss.push(rssMiB(daemon.pid));
      await sleep(Math.max(0, idleSeconds - 3) * 1000);
      settled.push(rssMiB(daemon.pid));
    } finally {
      await daemon.stop();
    }
  }
  const all = (xs: number[], f: (x: number) => string) => (xs.length > 1 ? ` (runs: ${xs.map(f).join(', ')})` : '');
  const startMs = median(starts) * 1000;
  const idle = median(settled);
  const scale = `${fmt(s.boxes)} boxes × ${s.versions} versions, ${fmt(s.agentIds.length)} agents`;
  return [
    {
      measure: `start to first \`/healthz\` 200 (${scale})`,
      value: `${fmt(startMs)} ms${all(starts, (x) => fmt(x * 1000))}`,
      baseline: '—',
      ratio: null,
      goal: '< 1,000 ms',
      pass: startMs < 1000,
    },
    {
      measure: `RSS idle ${idleSeconds} s after start, large database (every process of \`boxyard serve\`)`,
      value: `${fmt(idle)} MiB${all(settled, (x) => fmt(x))}`,
      baseline: '—',
      ratio: null,
      goal: '< 100 MiB',
      pass: idle < 100,
      note: `3 s after start: ${fmt(median(rss))} MiB${all(rss, (x) => fmt(x))}`,
    },
  ];
}
