import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCa } from './local-ca';
import { checkPair, checkPrivate, type PairError, privateFolder } from './private-files';

describe('tls/ private files', () => {
  const root = mkdtempSync(join(tmpdir(), 'boxyard-private-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a key folder is made 0700, and one found open to others is refused, not closed', async () => {
    const dir = join(root, 'keys');
    await privateFolder(join(dir, 'acme'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'acme')).mode & 0o777).toBe(0o700);
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o750);
    await expect(privateFolder(open)).rejects.toThrow(/open to other users \(mode 750\).*chmod 0700/);
    expect(statSync(open).mode & 0o777).toBe(0o750);
  });

  it('a key file open to other users is refused; one its group reads passes where the group may', async () => {
    const path = join(root, 'key.pem');
    writeFileSync(path, 'key', { mode: 0o600 });
    await expect(checkPrivate(path, 'file')).resolves.toBeUndefined();
    chmodSync(path, 0o640);
    await expect(checkPrivate(path, 'file')).rejects.toThrow(/open to other users \(mode 640\).*chmod 0600/);
    await expect(checkPrivate(path, 'file', 'group')).resolves.toBeUndefined();
    chmodSync(path, 0o644);
    await expect(checkPrivate(path, 'file', 'group')).rejects.toThrow(/outside its owner and group.*chmod 640/);
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
