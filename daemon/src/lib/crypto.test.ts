import { describe, expect, it } from 'vitest';
import { PasswordHasher, scrypt, type DeriveKey } from './crypto';

describe('PasswordHasher', () => {
  it('verifies its own hashes and no others, asking for no rehash', async () => {
    const h = new PasswordHasher();
    const stored = await h.hash('correct horse battery');
    expect(await h.verify('correct horse battery', stored)).toEqual({ ok: true, rehash: false });
    expect(await h.verify('correct horse batterY', stored)).toEqual({ ok: false, rehash: false });
  });

  it('asks to rehash a hash of other parameters once the password is right', async () => {
    const weak = new PasswordHasher({ params: { ln: 10, r: 8, p: 1 } });
    const stored = await weak.hash('a long enough password');
    expect(stored).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$/);
    const current = new PasswordHasher();
    expect(await current.verify('a long enough password', stored)).toEqual({ ok: true, rehash: true });
    expect(await current.verify('wrong', stored)).toEqual({ ok: false, rehash: false });
  });

  it('answers false after the same work for no hash, a damaged one, or parameters that would cost gigabytes', async () => {
    const calls: number[] = [];
    const derive: DeriveKey = (pw, salt, params) => {
      calls.push(params.ln);
      return scrypt(pw, salt, params);
    };
    const h = new PasswordHasher({ derive });
    for (const stored of [
      undefined,
      '',
      'x$y$z',
      '$scrypt$ln=30,r=8,p=1$AAAA$AAAA',
      '$scrypt$ln=14,r=8,p=99$AAAA$AAAA',
    ]) {
      expect(await h.verify('whatever-password', stored)).toEqual({ ok: false, rehash: false });
    }
    expect(calls).toEqual([14, 14, 14, 14, 14]);
  });

  it('derives at most `concurrency` keys at once, and every caller gets its answer', async () => {
    let running = 0;
    let most = 0;
    const derive: DeriveKey = async (pw, salt, params) => {
      most = Math.max(most, ++running);
      try {
        return await scrypt(pw, salt, { ...params, ln: 10 });
      } finally {
        running--;
      }
    };
    const h = new PasswordHasher({ derive, concurrency: 2 });
    const hashes = await Promise.all(Array.from({ length: 9 }, (_, i) => h.hash(`password number ${i}`)));
    expect(new Set(hashes).size).toBe(9);
    expect(most).toBe(2);
  });
});
