// glibc's malloc raises its mmap threshold each time it frees a large block (up to 32 MiB), and
// scrypt frees 16 MiB for every password it checks. From then on, blocks up to that size come
// from heaps that are never given back, and the daemon settles at about twice its memory under
// load (260 instead of 125 MiB in `npm run bench -- load`). A fixed threshold (glibc's default,
// 128 KiB) keeps large blocks mapped and returned; transfers measured no slower. glibc reads it
// only when a process starts, so bin/boxyard.mjs starts `serve` once more with it set.
export const MALLOC_ENV = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '131072' });
