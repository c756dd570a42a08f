import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCa } from '../../daemon/src/tls/local-ca';
import { daemonCertificateVerifier } from '../../main/src/daemon-trust';

const DAY = 86_400_000;

describe("the desktop window's trust in its daemon (--tls auto)", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'boxyard-trust-'));
    dirs.push(d);
    return d;
  };

  it("trusts a certificate of the data folder's CA for the daemon's host only, within its dates; leaves anything else to Chromium", async () => {
    const data = dataDir();
    const ca = await LocalCa.open(join(data, 'tls'), 'Boxyard', null);
    const leaf = await ca.issue(['localhost', '127.0.0.1']);
    const pem = leaf.cert.slice(0, leaf.cert.indexOf('-----END CERTIFICATE-----') + 25);
    let host: string | null = '127.0.0.1';
    let now = new Date();
    const verify = daemonCertificateVerifier({ dataDir: data, daemonHost: () => host, now: () => now });
    const ask = (hostname: string, data = pem) =>
      new Promise<number>((r) => verify({ hostname, certificate: { data } }, r));

    expect(await ask('127.0.0.1')).toBe(0);
    // Another host, even one the certificate names, is Chromium's to judge.
    expect(await ask('localhost')).toBe(-3);
    host = 'localhost';
    expect(await ask('localhost')).toBe(0);
    // A certificate of another CA (another data folder's), for the daemon's host.
    const other = await (await LocalCa.open(join(dataDir(), 'tls'), 'Other', null)).issue(['localhost']);
    expect(await ask('localhost', other.cert)).toBe(-3);
    // Ended.
    now = new Date(Date.now() + 91 * DAY);
    expect(await ask('localhost')).toBe(-3);
    // Daemon stopped, or not parseable.
    now = new Date();
    host = null;
    expect(await ask('localhost')).toBe(-3);
    host = 'localhost';
    expect(await ask('localhost', 'not a certificate')).toBe(-3);
  });

  it('with your own (or an ACME) certificate, trusts exactly the one the daemon serves, for its host, within its dates', async () => {
    const data = dataDir();
    const own = await (await LocalCa.open(join(dataDir(), 'tls'), 'Own', null)).issue(['boxes.example.org']);
    const file = join(data, 'own.pem');
    writeFileSync(file, own.cert);
    let now = new Date();
    const verify = daemonCertificateVerifier({
      dataDir: data,
      daemonHost: () => '127.0.0.1',
      servedFile: () => file,
      now: () => now,
    });
    const ask = (hostname: string, pem: string) =>
      new Promise<number>((r) => verify({ hostname, certificate: { data: pem } }, r));
    const leaf = own.cert.slice(0, own.cert.indexOf('-----END CERTIFICATE-----') + 25);
    // It names boxes.example.org, not 127.0.0.1: trusted there because it is the very certificate served.
    expect(await ask('127.0.0.1', leaf)).toBe(0);
    expect(await ask('boxes.example.org', leaf)).toBe(-3);
    const other = await (await LocalCa.open(join(dataDir(), 'tls'), 'Other', null)).issue(['boxes.example.org']);
    expect(await ask('127.0.0.1', other.cert)).toBe(-3);
    now = new Date(Date.now() + 91 * DAY);
    expect(await ask('127.0.0.1', leaf)).toBe(-3);
  });
});
