import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals to a fresh value each time that opens with the same context only', () => {
    const a = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    const b = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(a).not.toBe(b);
    expect(SecretBox.isSealed(a)).toBe(true);
    expect(SecretBox.isSealed('JBSWY3DPEHPK3PXP')).toBe(false);
    expect(box.open(a, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(box.open(a, 'user-2')).toBeUndefined();
    expect(new SecretBox(randomBytes(32)).open(a, 'user-1')).toBeUndefined();
  });

  it('refuses altered or malformed values', () => {
    const sealed = box.seal('secret', 'ctx');
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.at(-1);
    for (const bad of [flipped, 'v1.', 'v1.x.y', 'v1.AAAAAAAAAAAAAAAA.AAAA', 'plain'])
      expect(box.open(bad, 'ctx')).toBeUndefined();
  });

  it('wants a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
