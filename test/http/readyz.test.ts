import { describe, expect, it } from 'vitest';
import { startTestDaemon } from '../helpers/daemon';

/** `/readyz`, what a load balancer asks (docs/deploy.md): ready while serving, 503 while draining. */
describe('/readyz', () => {
  it('answers ready with the leader flag, then 503 draining while the daemon drains, and /healthz stays ok', async () => {
    const d = await startTestDaemon({ config: { drainSeconds: 3 } });
    const ready = await d.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({
      status: 'ready',
      leader: true,
      checks: { database: { status: expect.any(String) } },
    });
    expect(ready.headers.get('cache-control')).toBe('no-store');

    const stopped = d.stop();
    const draining = await d.http.get('/readyz');
    expect(draining.status).toBe(503);
    expect(draining.json).toMatchObject({ status: 'draining' });
    // Still serving everything else until the drain ends.
    expect((await d.http.get('/healthz')).status).toBe(200);
    expect((await d.http.get('/api/v1/search')).status).toBe(200);
    await stopped;
    await expect(fetch(`${d.url}/readyz`)).rejects.toThrow();
  });
});
