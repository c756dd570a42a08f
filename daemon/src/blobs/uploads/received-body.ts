import { BadRequestError } from '../../lib/errors';
import { SizeMismatchError } from '../blob-store';

/** Errors of the request stream itself: the client went away before the body was complete. */
function isClientAbort(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (
    code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error | undefined)?.message === 'aborted'
  );
}

/**
 * A request body that did not arrive whole (uploads, imports), in words the client acts on;
 * other errors pass through. `what` names the request: "upload" or "import".
 */
export function explainReceived(err: unknown, what: 'upload' | 'import'): unknown {
  if (err instanceof SizeMismatchError) {
    return new BadRequestError(
      `The ${what} ended after ${err.received} of the ${err.expected} bytes announced in Content-Length. Nothing was stored; send the file again.`,
    );
  }
  if (isClientAbort(err))
    return new BadRequestError(
      `The ${what} connection closed before the whole file arrived. Nothing was stored; send the file again.`,
    );
  return err;
}
