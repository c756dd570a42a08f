import type { Principal } from '../../auth/accounts-service';
import type { ErrorCode } from '../../contract/error-codes';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { UpstreamGate } from './http';
import type { UpstreamService } from './service';
import { isRemote, sourceFor } from './source';

export interface ProbeResult {
  ok: boolean;
  code: ErrorCode | null;
  message: string;
  tested_at: string;
}

/**
 * "Test connection": asks the upstream what shows it answers, with its stored token. A failure is
 * the answer (its code and message), not an error of the request, and the upstream's `last_error`
 * until something succeeds (its health); offline mode refuses the test
 * of a network upstream with its own error, since nothing was tried. The breaker's pause does not
 * stop a test the user asked for, and the result counts as any request's would.
 */
export class UpstreamProbe {
  constructor(
    private readonly upstreams: UpstreamService,
    private readonly gate: UpstreamGate,
    private readonly clock: Clock,
  ) {}

  async test(p: NonNullable<Principal>, id: string): Promise<ProbeResult> {
    const u = await this.upstreams.get(p, id);
    if (isRemote(u)) await this.gate.check(u, true);
    const tested_at = this.clock.now().toISOString();
    try {
      const what = await sourceFor(u, this.gate).probe();
      await this.gate.succeeded(u);
      return { ok: true, code: null, message: `Upstream "${u.name}" answered: ${what}.`, tested_at };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // The upstream's health says what the last test found, whatever failed (a 404 is not the breaker's).
      await this.gate.noted(u, err.message);
      return { ok: false, code: err.code, message: err.message, tested_at };
    }
  }
}
