import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCa } from '../helpers/certificates';
import { runCli } from '../helpers/cli';

/** The bundle `boxyard trust` starts from: the first system bundle it finds (tls/trust.ts), here Debian's. */
const SYSTEM = '/etc/ssl/certs/ca-certificates.crt';

/**
 * A stand-in for a daemon, or for someone between the client and the daemon: whatever body is set
 * is what `GET /ca.pem` answers.
 */
describe('boxyard trust takes exactly the certificate it checked', () => {
  let server: Server;
  let url: string;
  let body = '';
  let genuine: string;
  let other: string;
  let leaf: string;
  const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
  const bundle = () => join(mkdtempSync(join(tmpdir(), 'boxyard-trust-')), 'bundle.pem');

  beforeAll(async () => {
    const mine = await testCa();
    const theirs = await testCa();
    genuine = readFileSync(mine.caFile, 'utf8');
    other = readFileSync(theirs.caFile, 'utf8');
    // A server certificate the genuine CA issued: its file is the chain, the leaf first.
    const issued = readFileSync((await mine.issue(['localhost'], 'leaf')).cert, 'utf8');
    leaf = issued.slice(0, issued.indexOf('-----END CERTIFICATE-----') + '-----END CERTIFICATE-----'.length);
    server = createServer((req, res) => {
      res.writeHead(req.url === '/ca.pem' ? 200 : 404, { 'content-type': 'application/x-pem-file' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses the genuine CA with a second CA appended, and writes nothing', async () => {
    body = `${genuine.trim()}\n${other}`;
    const out = bundle();
    const r = await runCli(['trust', url, '--fingerprint', fingerprint(genuine), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /sent 2 PEM blocks where a Boxyard daemon sends its one CA certificate: do not trust it .*Nothing was written/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses the genuine CA followed by a block of any other kind', async () => {
    body = `${genuine}-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n`;
    const out = bundle();
    const r = await runCli(['trust', url, '--fingerprint', fingerprint(genuine), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sent 2 PEM blocks/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a certificate that is not a CA even when its fingerprint is the one given', async () => {
    body = leaf;
    expect(new X509Certificate(leaf).ca).toBe(false);
    const out = bundle();
    const r = await runCli(['trust', url, '--fingerprint', fingerprint(leaf), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /has the fingerprint given but is not a CA certificate \(its basicConstraints lack CA:TRUE\).*Nothing was written/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("writes the system's CAs and the checked CA encoded again, none of the text around it", async () => {
    // Text around a PEM block is allowed (RFC 7468), and CRLF line ends: neither reaches the bundle.
    body = `explanatory text the bundle must not get\r\n${genuine.trim().replace(/\n/g, '\r\n')}\r\ntrailing words\r\n`;
    const out = bundle();
    const r = await runCli([
      'trust',
      url,
      '--fingerprint',
      fingerprint(genuine).replace(/:/g, '').toLowerCase(),
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const written = readFileSync(out, 'utf8');
    const system = existsSync(SYSTEM) ? readFileSync(SYSTEM, 'utf8') : '';
    expect(written.startsWith(system)).toBe(true);
    const added = written.slice(system.length);
    const m =
      /^\n# Boxyard local CA of http:\/\/127\.0\.0\.1:\d+, fingerprint [0-9A-F]{64}\n(-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+\n-----END CERTIFICATE-----)\n$/.exec(
        added,
      );
    assert(m, `the bundle does not end with the checked CA: ${added}`);
    expect(fingerprint(m[1])).toBe(fingerprint(genuine));
    expect(written.match(/-----BEGIN /g)).toHaveLength((system.match(/-----BEGIN /g) ?? []).length + 1);
    expect(written).not.toContain('explanatory text');
    expect(written).not.toContain('trailing words');
    expect(written).not.toContain('\r');
  });
});
