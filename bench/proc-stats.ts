/**
 * What Linux's /proc says of a process and every process it started: resident memory, open descriptors and CPU
 * time, read the same way by every bench part (the daemon is one process, its digesting and integrity workers
 * threads of it; a baseline may start children).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A process and its descendants (Linux /proc): what a user sees running for one command. */
function tree(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    /* gone */
  }
  return [pid, ...kids.flatMap(tree)];
}

/** Resident memory of a process in MiB (VmRSS), or 0 once it is gone. */
function ownRssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of a process and every process it started, summed (shared pages counted in each, as `ps` shows them),
 * in MiB.
 */
export function rssMiB(pid: number): number {
  return tree(pid).reduce((t, p) => t + ownRssMiB(p), 0);
}

/** What the open descriptors of a process and every process it started point at (`/proc/PID/fd`). */
export function descriptors(pid: number): string[] {
  return tree(pid).flatMap((p) => {
    try {
      return readdirSync(`/proc/${p}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${p}/fd/${fd}`);
        } catch {
          return ''; // closed meanwhile
        }
      });
    } catch {
      return [];
    }
  });
}

/** Samples a process's resident memory every 50 ms; `stop()` gives the peak in MiB. */
export function rssSampler(pid: number) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, rssMiB(pid));
      return peak;
    },
  };
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU seconds (user + system) a process has used so far, from /proc/PID/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
}
