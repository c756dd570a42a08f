import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets its old generation grow past what the last full collection kept before it
 * collects again, in percent.
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * Left to itself, V8 lets the old generation grow up to four times what a full collection keeps
 * when collecting is quick, as it is for a daemon that keeps 25 MiB: under ten clients searching
 * 10,000 boxes (bench/, `api`) the old generation went from 25 to 76 MiB of mostly dead answers
 * before V8 collected, and the daemon's resident memory peaked near 200 MiB against a goal of 150.
 * With 30% it stays near 27 MiB and the peak at about 137 MiB, at the same requests a second (a
 * full collection of such a heap takes a few milliseconds, mostly on V8's own threads).
 *
 * V8 reads this flag each time it sets the next limit, so setting it in the running process works;
 * the young generation's size, fixed when the heap is made, cannot be set this way. Returns what
 * was done, for the log.
 */
export function limitHeapGrowth(): string {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return `the old generation grows ${HEAP_GROWING_PERCENT}% past what a full collection keeps`;
}
