import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCa } from './local-ca';
import { permittedFor } from './name-constraints';

const LAN = permittedFor({ host: '127.0.0.1', publicUrl: undefined, allowedHosts: [] }, 'labhost');

describe('LocalCa.replace (boxyard tls new-ca)', () => {
  const root = mkdtempSync(join(tmpdir(), 'boxyard-local-ca-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('makes a constrained CA in place of the one before, drops its server certificate, and records what it replaced', async () => {
    const dir = join(root, 'a');
    const old = await LocalCa.open(dir, 'Boxyard', null);
    expect(old.permitted).toBeNull();
    await old.issue(['localhost']);
    const fresh = await LocalCa.replace(dir, 'Boxyard', LAN);
    expect(fresh.fingerprint).not.toBe(old.fingerprint);
    expect(existsSync(join(dir, 'server.pem'))).toBe(false);
    const opened = await LocalCa.open(dir, 'Boxyard', null);
    expect(opened.fingerprint).toBe(fresh.fingerprint);
    expect(opened.permitted).toEqual(LAN);
    expect(await opened.replaced()).toEqual({
      at: expect.stringMatching(/^\d{4}-/),
      previous_fingerprint: old.fingerprint,
    });
    // A CA made later some other way (its files removed by hand, a first start) is not the one replace made.
    for (const f of ['ca.pem', 'ca-key.pem']) rmSync(join(dir, f));
    expect(await (await LocalCa.open(dir, 'Boxyard', LAN)).replaced()).toBeNull();
  });

  it("a CA file whose key is another CA's stops the start, and says what to do", async () => {
    const [a, b] = [join(root, 'b'), join(root, 'c')];
    await LocalCa.open(a, 'Boxyard', LAN);
    await LocalCa.open(b, 'Boxyard', LAN);
    copyFileSync(join(b, 'ca-key.pem'), join(a, 'ca-key.pem'));
    await expect(LocalCa.open(a, 'Boxyard', LAN)).rejects.toThrow(
      /ca-key\.pem is not the key of .*ca\.pem.*boxyard tls new-ca/,
    );
  });
});
