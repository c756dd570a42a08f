import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMeter, formatBytes, formatSeconds } from './meter';

/** A non-TTY stream that keeps what was written. */
function capture() {
  const lines: string[] = [];
  const out = new Writable({
    write(c: Buffer, _e, cb) {
      lines.push(...c.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return { out: out as unknown as NodeJS.WriteStream, lines };
}

describe('formatBytes and formatSeconds', () => {
  it('use binary units and short durations', () => {
    expect([0, 1023, 1536, 5 * 1024 * 1024, 3 * 1024 ** 4].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.5 KiB',
      '5.0 MiB',
      '3.0 TiB',
    ]);
    expect([0, 59.6, 61, 3599, 7260].map(formatSeconds)).toEqual(['0s', '1m00s', '1m01s', '59m59s', '2h01m']);
  });
});

describe('createMeter on a stream that is not a terminal', () => {
  it('prints a plain line when a file finishes and every few seconds, with rate and ETA from the clock', () => {
    let now = 0;
    const { out, lines } = capture();
    const m = createMeter(out, () => now, 5000);
    const total = 10 * 1024 * 1024;
    m.update({ bytesDone: 0, bytesTotal: total, filesDone: 0, filesTotal: 2, label: 'a.box' });
    now = 1000;
    m.update({ bytesDone: 1024 * 1024, bytesTotal: total, filesDone: 0, filesTotal: 2, label: 'a.box' });
    now = 5000;
    m.update({ bytesDone: 5 * 1024 * 1024, bytesTotal: total, filesDone: 1, filesTotal: 2, label: 'b.box' });
    m.log('a.box: downloaded');
    now = 6000;
    m.update({ bytesDone: 6 * 1024 * 1024, bytesTotal: total, filesDone: 1, filesTotal: 2, label: 'b.box' });
    m.stop();
    expect(lines).toEqual([
      'progress: 0 B of 10.0 MiB (0%), 0/2 files, -/s, ETA - - a.box',
      'progress: 5.0 MiB of 10.0 MiB (50%), 1/2 files, 1.0 MiB/s, ETA 5s - b.box',
      'a.box: downloaded',
      'progress: 6.0 MiB of 10.0 MiB (60%), 1/2 files, 1.0 MiB/s, ETA 4s - b.box',
    ]);
  });

  it('takes rate and ETA when given (a mirror job reports its own) and shows an unknown total as ?', () => {
    const { out, lines } = capture();
    const m = createMeter(out, () => 0);
    m.update({ bytesDone: 0, bytesTotal: null, filesDone: 0, filesTotal: 0, rate: null, eta: null, label: 'queued' });
    m.update({ bytesDone: 2048, bytesTotal: 4096, filesDone: 1, filesTotal: 2, rate: 1024, eta: 2, label: 'running' });
    m.stop();
    expect(lines).toEqual([
      'progress: 0 B of ?, 0/0 files, -/s, ETA - - queued',
      'progress: 2.0 KiB of 4.0 KiB (50%), 1/2 files, 1.0 KiB/s, ETA 2s - running',
    ]);
  });
});
