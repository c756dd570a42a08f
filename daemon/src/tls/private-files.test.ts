import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCa } from './local-ca';
import { checkPair, checkPrivate, type PairError, privateFolder, writePrivate } from './private-files';

describe('tls/ private files', () => {
  const root = mkdtempSync(join(tmpdir(), 'boxyard-private-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a private file is written 0600 whole, over a file that was open to others, leaving no temporary file', async () => {
    const dir = join(root, 'keys');
    await privateFolder(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const path = join(dir, 'key.pem');
    writeFileSync(path, 'old', { mode: 0o644 });
    chmodSync(path, 0o644);
    await writePrivate(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['key.pem']);
    chmodSync(path, 0o640);
    await expect(checkPrivate(path, 'file')).rejects.toThrow(/open to other users \(mode 640\).*chmod 0600/);
    await expect(checkPrivate(path, 'file', 'group')).resolves.toBeUndefined();
  });

  it("a pair passes when the key is the certificate's and the moment is within its dates", async () => {
    const ca = await LocalCa.open(join(root, 'ca'), 'Test', null);
    const a = await ca.issue(['localhost']);
    const b = await ca.issue(['localhost']);
    expect(checkPair(a.cert, a.key, new Date()).notAfter).toEqual(a.notAfter);
    const fault = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as PairError).fault;
      }
      return null;
    };
    expect(fault(() => checkPair(a.cert, b.key, new Date()))).toBe('mismatch');
    expect(fault(() => checkPair(a.cert, a.key, new Date(a.notAfter.getTime() + 1)))).toBe('expired');
    expect(fault(() => checkPair(a.cert, a.key, new Date(a.notBefore.getTime() - 1)))).toBe('not_yet_valid');
    expect(fault(() => checkPair(a.cert, a.key, new Date(a.notBefore.getTime() - 1), { early: 'allowed' }))).toBeNull();
    expect(fault(() => checkPair(a.cert, a.key, null))).toBeNull();
    expect(fault(() => checkPair('nope', a.key, null))).toBe('certificate');
    expect(fault(() => checkPair(a.cert, 'nope', null))).toBe('key');
  });
});
