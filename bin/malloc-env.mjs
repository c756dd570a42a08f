// glibc's malloc raises its mmap threshold each time it frees a large block (up to 32 MiB), and
// scrypt frees 16 MiB for every password it checks. From then on, blocks up to that size come
// from heaps that are never given back, and the daemon settles at about twice its memory under
// load (260 instead of 125 MiB in `npm run bench -- load`). A fixed threshold (glibc's default,
// 128 KiB) keeps large blocks mapped and returned; transfers measured no slower. glibc reads it
// only when a process starts, so bin/boxyard.mjs starts `serve` once more with it set.
//
// Setting the threshold also fixes the trim threshold at glibc's default, 128 KiB: every free that
// leaves more than that on top of the heap gives it back (brk), and the next statement takes it
// again, faulting the pages in anew. SQLite does that on each write: an agent's report (one
// UPDATE) cost 250 µs of CPU, 145 µs of it in the kernel, six brk calls a statement (strace -c);
// with 4 MiB kept it costs 60 µs. At most 4 MiB of freed memory stays with the process.
export const MALLOC_ENV = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '4194304' });
