import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';

/** Resident memory of a process in MiB, from /proc (Linux), or 0 once it is gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The same block repeated: `total` bytes without holding them in the test's memory. */
export function repeated(block: Buffer, total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      sent += block.length;
      this.push(block);
    },
  });
}
