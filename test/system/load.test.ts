import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runLoadMix } from '../helpers/load-mix';

/**
 * The load test, short and bounded by operations (bench/load.ts runs it for a time and
 * records memory): 50 clients at once, every answer right, nothing lost, one consistent end state.
 */
let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(() => d.stop());

describe('50 concurrent clients', () => {
  it('mix downloads, search, uploads, logins and agent reports without an error or a lost update', async () => {
    const r = await runLoadMix(d.url, {
      clients: 50,
      opsPerClient: 10,
      fileBytes: 64 * 1024,
      admin: { ...ADMIN, token: d.adminToken },
    });
    expect(r.failures, r.failures.join('\n')).toEqual([]);
    expect(r.problems).toEqual([]);
    expect(['released', 'deleted']).toContain(r.race);
    const done = Object.values(r.ops).reduce((n, o) => n + o.ok, 0);
    expect(done).toBe(500);
    for (const op of ['download', 'upload', 'report', 'race'] as const) expect(r.ops[op].ok).toBeGreaterThan(0);
  });
});
