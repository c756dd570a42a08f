import { finished, PassThrough, type Readable } from 'node:stream';

export interface DetachedBody {
  /** What the write pipeline reads: it may be destroyed without destroying the body. */
  source: Readable;
  /** After a failed write: stops reading into `source` and reads the rest of the body only to drop it. */
  release(): void;
}

/**
 * A request body handed to a write pipeline that must not destroy it when the write fails: an
 * HTTP request destroyed takes its socket along, and the client would see a reset instead of the
 * answer that says why (the 507 of a disk that filled up while the file streamed in). The body's
 * errors and an early close still fail the pipeline.
 */
export function detachedBody(body: Readable, highWaterMark: number): DetachedBody {
  const source = new PassThrough({ highWaterMark });
  body.pipe(source);
  const stop = finished(body, { writable: false }, (err) => {
    if (err) source.destroy(err);
  });
  return {
    source,
    release() {
      stop();
      // An error already on its way (the client aborting, the copy being destroyed) must still
      // find a listener once `finished`'s are gone: an unheard 'error' would end the daemon.
      body.on('error', () => undefined);
      source.on('error', () => undefined);
      body.unpipe(source);
      if (!body.destroyed) body.resume();
    },
  };
}
