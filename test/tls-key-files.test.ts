import { chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon } from './helpers/daemon';
import { testCa } from './helpers/certificates';

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('--tls-key: a key file other users may open', () => {
  let certs: Awaited<ReturnType<typeof testCa>>;
  beforeAll(async () => { certs = await testCa(); });

  it('stops the start with the chmod that fixes it, for read or write by others; its group may read it', async () => {
    const pair = await certs.issue(['localhost', '127.0.0.1'], 'modes');
    for (const mode of [0o644, 0o604, 0o602]) {
      chmodSync(pair.key, mode);
      await expect(startTestDaemon({ config: { tlsCert: pair.cert, tlsKey: pair.key } }), mode.toString(8)).rejects.toThrow(new RegExp(
        `^${escaped(pair.key)} is open to users outside its owner and group \\(mode ${mode.toString(8)}\\); it holds a TLS private key.*chmod 640 ${escaped(pair.key)}, or 600`,
      ));
    }
    chmodSync(pair.key, 0o640);
    const d = await startTestDaemon({ config: { tlsCert: pair.cert, tlsKey: pair.key }, caFile: certs.caFile });
    try {
      expect((await d.http.get('/healthz')).status).toBe(200);
    } finally {
      await d.stop();
    }
  });
});
