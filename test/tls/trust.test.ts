import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemCas } from '../../daemon/src/tls/client-fetch';
import { testCa } from '../helpers/certificates';
import { runCli } from '../helpers/cli';

/**
 * The public CAs `boxyard trust` starts its bundle from (tls/client-fetch.ts's `caBundle`): this
 * machine's bundle file where it has one, else Node's list.
 */
const SYSTEM = systemCas();
const PUBLIC = `${SYSTEM.map((pem) => pem.trim()).join('\n')}\n`;
const PUBLIC_COUNT = PUBLIC.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+\n-----END CERTIFICATE-----/g;

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

  it('writes the public CAs and the checked CA encoded again, none of the text around it, readable by all', async () => {
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
    expect(written.startsWith(PUBLIC)).toBe(true);
    const added = written.slice(PUBLIC.length);
    const m =
      /^# Boxyard local CA of http:\/\/127\.0\.0\.1:\d+, fingerprint [0-9A-F]{64}\n(-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+\n-----END CERTIFICATE-----)\n$/.exec(
        added,
      );
    assert(m, `the bundle does not end with the checked CA: ${added}`);
    expect(fingerprint(m[1])).toBe(fingerprint(genuine));
    expect(written.match(/-----BEGIN /g)).toHaveLength(PUBLIC_COUNT + 1);
    expect(written).not.toContain('explanatory text');
    expect(written).not.toContain('trailing words');
    expect(written).not.toContain('\r');
    expect(statSync(out).mode & 0o777).toBe(0o644);
  });

  it("the bundle holds a public CA besides the daemon's, on any system, and a second trust replaces it whole", async () => {
    body = genuine;
    const out = bundle();
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['trust', url, '--fingerprint', fingerprint(genuine), '--out', out]);
      expect(r.code, r.stderr).toBe(0);
    }
    const certs = (readFileSync(out, 'utf8').match(PEM_CERTIFICATE) ?? []).map((pem) => new X509Certificate(pem));
    // Let's Encrypt's root, as the machine's own Node has it: no network, no system file.
    const isrg = rootCertificates.map((pem) => new X509Certificate(pem)).find((c) => /CN=ISRG Root X1/.test(c.subject));
    assert(isrg, "this Node's public CAs lack ISRG Root X1");
    expect(certs.filter((c) => c.fingerprint256 === isrg.fingerprint256)).toHaveLength(1);
    expect(certs.filter((c) => c.fingerprint256 === fingerprint(genuine))).toHaveLength(1);
    expect(certs).toHaveLength(PUBLIC_COUNT + 1);
  });
});
