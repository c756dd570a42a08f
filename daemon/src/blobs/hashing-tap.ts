import { Transform } from 'node:stream';
import type { Digester } from './digester';

/** A pass-through stream that feeds every chunk to the digester (waiting when it is behind) and counts bytes. */
export function hashingTap(digester: Digester, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      counter.bytes += chunk.length;
      Promise.resolve(digester.update(chunk)).then(() => cb(null, chunk), cb);
    },
  });
}
