import { loadKoffi } from './lazy-modules';

/** mallopt's parameters (glibc's malloc.h). */
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;

/**
 * glibc's malloc settings for a daemon, set in its own process with mallopt (through koffi, a
 * foreign-function library), before it allocates much:
 *
 * - A fixed mmap threshold (glibc's default, 128 KiB). glibc raises it each time a large block
 *   is freed (up to 32 MiB), and scrypt frees 16 MiB for every password it checks: from then on
 *   blocks up to that size came from heaps never given back, and the daemon settled at about twice
 *   its memory under load (260 instead of 125 MiB in `npm run bench -- load`). Transfers measured
 *   no slower.
 * - A trim threshold of 4 MiB: fixing the mmap threshold also fixes the trim threshold at 128 KiB,
 *   and every free that left more on top of the heap gave it back (brk) for the next statement to
 *   fault in anew. SQLite does that on each write: an agent's report cost 250 µs of CPU, 145 µs
 *   of it in the kernel (strace -c: six brk calls a statement); with 4 MiB kept it costs 60 µs.
 *
 * These were once environment variables (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_), which
 * glibc reads only when a process starts: `serve` ran a second Node process for them, 44 MiB of
 * resident memory for nothing else. Returns what was done, for the log; elsewhere than Linux with
 * glibc there is nothing to set.
 */
export async function tuneMalloc(): Promise<string> {
  if (process.platform !== 'linux') return 'not Linux: malloc left as it is';
  const koffi = await loadKoffi();
  let libc: ReturnType<typeof koffi.load>;
  let glibc: string;
  try {
    libc = koffi.load('libc.so.6');
    glibc = (libc.func('const char *gnu_get_libc_version()') as () => string)();
  } catch {
    return 'not glibc: malloc left as it is';
  }
  const mallopt = libc.func('int mallopt(int, int)') as (param: number, value: number) => number;
  if (mallopt(M_MMAP_THRESHOLD, 128 * 1024) !== 1 || mallopt(M_TRIM_THRESHOLD, 4 * 1024 * 1024) !== 1) {
    throw new Error('glibc refused the malloc settings (mallopt)');
  }
  return `glibc ${glibc}: mmap threshold 128 KiB, trim threshold 4 MiB`;
}
