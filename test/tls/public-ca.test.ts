import { afterAll, describe, expect, it } from 'vitest';
import { localCaOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { PublicCaAnswer } from '../../daemon/src/contract/wire/ca';

// GET /api/boxyard/ca, which every visitor's page reads for its trust step: to anyone, the CA's fingerprint and
// nothing else (not the certificate's names, its end, or the CA's history); null without a CA of the daemon's own.

describe('GET /api/boxyard/ca', () => {
  const daemons: TestDaemon[] = [];
  afterAll(async () => {
    for (const d of daemons) await d.stop();
  });

  it('answers an anonymous caller the fingerprint of --tls auto’s CA, and only that', async () => {
    const d = await startTestDaemon({ config: { tls: 'auto' } });
    daemons.push(d);
    const r = await d.http.get('/api/boxyard/ca');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ca: { fingerprint: localCaOf(d).fingerprint } });
    expect(PublicCaAnswer.parse(r.json).ca?.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('answers null over plain HTTP: there is nothing to trust', async () => {
    const d = await startTestDaemon();
    daemons.push(d);
    const r = await d.http.get('/api/boxyard/ca');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ca: null });
  });
});
