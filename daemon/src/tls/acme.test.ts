import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACME_CERT_FILE } from '../contract/lan';
import { AcmeIssuer } from './acme';
import { type IssuedCertificate, LocalCa } from './local-ca';

/** What the stand-in directory issues: a chain, and the key its CSR was made with. */
const issued = vi.hoisted(() => ({ cert: '', key: '' }));

// acme-client's Client and key making stood in for: the order answers `issued`, whatever was asked.
vi.mock('../lib/lazy-modules', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/lazy-modules')>()),
  loadAcmeClient: async () => ({
    Client: class {
      auto = async () => issued.cert;
      getAccountUrl = () => 'https://acme.test/account/1';
    },
    crypto: {
      createPrivateEcdsaKey: async () => Buffer.from(issued.key),
      createCsr: async () => [Buffer.from(issued.key), Buffer.from('csr')],
    },
  }),
}));

describe('a certificate from ACME is checked against its key before it is kept or served', () => {
  let root: string;
  let directory: Server;
  let url: string;
  let pairs: IssuedCertificate[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'boxyard-acme-unit-'));
    const ca = await LocalCa.open(join(root, 'ca'), 'Test', null);
    pairs = [await ca.issue(['boxes.test']), await ca.issue(['boxes.test'])];
    directory = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => directory.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(directory.address() as { port: number }).port}/dir`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => directory.close(() => resolve()));
    rmSync(root, { recursive: true, force: true });
  });

  const issuer = async (dataDir: string) => {
    const acme = new AcmeIssuer({ dataDir, name: 'boxes.test', directory: url, log: pino({ level: 'silent' }) });
    await acme.open();
    return acme;
  };
  const kept = (dataDir: string) =>
    ['cert.pem', 'key.pem', 'order.json'].filter((f) => existsSync(join(dataDir, dirname(ACME_CERT_FILE), f)));

  it('a chain that is not for the key is refused, and nothing of it is stored', async () => {
    const dataDir = join(root, 'mismatch');
    const acme = await issuer(dataDir);
    Object.assign(issued, { cert: pairs[0].cert, key: pairs[1].key });
    await expect(acme.issue()).rejects.toThrow(
      /the key made for boxes\.test is not the key of the certificate in the chain http:\/\/127\.0\.0\.1:\d+\/dir issued/,
    );
    expect(kept(dataDir)).toEqual([]);
    expect(await acme.held(new Date())).toBeNull();
  });

  it('a chain for the key is stored and served with its dates', async () => {
    const dataDir = join(root, 'match');
    const acme = await issuer(dataDir);
    Object.assign(issued, { cert: pairs[0].cert, key: pairs[0].key });
    const got = await acme.issue();
    expect(got).toMatchObject({ cert: pairs[0].cert, notBefore: pairs[0].notBefore, notAfter: pairs[0].notAfter });
    expect(kept(dataDir)).toEqual(['cert.pem', 'key.pem', 'order.json']);
    expect((await acme.held(new Date()))?.cert).toBe(pairs[0].cert);
  });
});
