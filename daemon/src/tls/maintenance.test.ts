import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import type { Issuer, ServedCertificate } from './issuer';
import { ManagedCertificate, renewalDue } from './maintenance';

const DAY = 86_400_000;
const T0 = new Date('2030-01-01T00:00:00Z');
const cert = (n: number, from: Date, days = 90): ServedCertificate => ({
  key: `k${n}`,
  cert: `c${n}`,
  notBefore: from,
  notAfter: new Date(from.getTime() + days * DAY),
});

/** An issuer that holds what it last issued, and fails while `down`. */
function fakeIssuer(first: ServedCertificate | null, clock: ManualClock) {
  let n = 1;
  const state = { held: first, down: false, issued: 0 };
  const issuer: Issuer = {
    mode: 'acme',
    publicTrust: true,
    ca: null,
    failing: 'renewing failed',
    open: async () => undefined,
    held: async () => state.held,
    issue: async () => {
      if (state.down) throw new TypeError('connect ECONNREFUSED');
      state.issued += 1;
      state.held = cert(++n, clock.now());
      return state.held;
    },
    describe: () => ({ message: 'fine' }),
  };
  return { issuer, state };
}

describe('the renewal policy', () => {
  it('is due once less than a third of the life is left, whatever the life', () => {
    for (const days of [90, 7, 365]) {
      const c = cert(1, T0, days);
      const third = (days * DAY) / 3;
      expect(renewalDue(c, new Date(c.notAfter.getTime() - third - 1))).toBe(false);
      expect(renewalDue(c, new Date(c.notAfter.getTime() - third + 1))).toBe(true);
    }
  });

  it('with exactly a third left it is not due yet (less than a third is)', () => {
    // 90 days: due only once fewer than 30 days are left.
    const c = cert(1, T0, 90);
    expect(renewalDue(c, new Date(T0.getTime() + 60 * DAY))).toBe(false);
    expect(renewalDue(c, new Date(T0.getTime() + 60 * DAY + 1))).toBe(true);
  });

  it('an expired certificate is due, at its end and after it', () => {
    const c = cert(1, T0, 90);
    expect(renewalDue(c, c.notAfter)).toBe(true);
    expect(renewalDue(c, new Date(c.notAfter.getTime() + 10 * DAY))).toBe(true);
  });

  it('a certificate not valid yet (its CA clock ahead) is not due: its whole life is still ahead', () => {
    const c = cert(1, new Date(T0.getTime() + DAY), 90);
    expect(renewalDue(c, T0)).toBe(false);
    expect(renewalDue(c, new Date(T0.getTime() - 365 * DAY))).toBe(false);
  });
});

describe('the maintenance loop', () => {
  const log = pino({ level: 'silent' });

  it('serves what the issuer holds, renews it when due, and keeps it with backoff while renewing fails', async () => {
    const clock = new ManualClock(T0);
    const { issuer, state } = fakeIssuer(cert(1, T0), clock);
    const loop = new ManagedCertificate(issuer, { clock, log });
    const changes: ServedCertificate[] = [];
    try {
      expect((await loop.start((c) => changes.push(c))).cert).toBe('c1');
      await loop.reload();
      expect(state.issued).toBe(0);
      clock.advance(61 * DAY);
      await loop.reload();
      expect(changes.map((c) => c.cert)).toEqual(['c2']);
      expect(loop.status()).toMatchObject({ ok: true, message: 'fine', not_after: changes[0].notAfter.toISOString() });

      state.down = true;
      clock.advance(61 * DAY);
      await loop.reload();
      expect(loop.status()).toMatchObject({
        ok: false,
        not_after: changes[0].notAfter.toISOString(),
        message: expect.stringMatching(
          /^renewing failed: connect ECONNREFUSED; retrying in 60 s \(still serving the current one until /,
        ),
      });
      await loop.reload();
      expect(loop.status().message).toMatch(/retrying in 120 s/);
      state.down = false;
      await loop.reload();
      expect(loop.status()).toMatchObject({ ok: true, message: 'fine' });
      expect(changes.map((c) => c.cert)).toEqual(['c2', 'c3']);
    } finally {
      loop.stop();
    }
  });

  it('issues at start when the issuer holds nothing, and a start that gets nothing fails', async () => {
    const clock = new ManualClock(T0);
    const { issuer } = fakeIssuer(null, clock);
    const loop = new ManagedCertificate(issuer, { clock, log });
    expect((await loop.start(() => undefined)).cert).toBe('c2');
    loop.stop();
    const down = fakeIssuer(null, clock);
    down.state.down = true;
    await expect(
      new ManagedCertificate(
        { ...down.issuer, startFailure: (err) => new Error(`no certificate: ${(err as Error).message}`) },
        { clock, log },
      ).start(() => undefined),
    ).rejects.toThrow('no certificate: connect ECONNREFUSED');
  });

  it('an issuer that only reads (your own files) is read again, never renewed', async () => {
    const clock = new ManualClock(T0);
    const { issuer, state } = fakeIssuer(cert(1, T0), clock);
    const loop = new ManagedCertificate({ ...issuer, issue: undefined }, { clock, log });
    const changes: ServedCertificate[] = [];
    await loop.start((c) => changes.push(c));
    clock.advance(80 * DAY);
    await loop.reload();
    expect(changes).toEqual([]);
    state.held = cert(9, clock.now());
    await loop.reload();
    expect(changes.map((c) => c.cert)).toEqual(['c9']);
    loop.stop();
  });
});
