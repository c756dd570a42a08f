import { setTimeout as delay } from 'node:timers/promises';
import { errorCodeOf } from '../contract/error-codes';
import { AGENT } from '../http/route-table';
import { pathTo } from '../http/urls';
import { retrying } from '../lib/backoff';

/**
 * The Boxyard agent (`boxyard agent --url … --token …`): registers with a pool's agent token,
 * reports its status on the interval the daemon asks for, reports `exited` when stopped with
 * SIGINT/SIGTERM, retries with backoff while the daemon is away, and stops for good when the daemon
 * says so (token revoked, agent errored, exited or deleted). The protocol is in docs/agent-pools.md.
 */

export interface AgentClientOptions {
  url: string;
  token: string;
  name?: string;
  log: (line: string) => void;
  /** First and longest wait between retries while the daemon cannot be reached. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How requests are sent (`--ca-file`: one that trusts the daemon's CA; tls/client-fetch.ts). */
  fetch?: typeof fetch;
  /** The status reported on each interval; Boxyard agents run no jobs yet, so they are idle. */
  status?: () => 'idle' | 'busy';
}

export interface AgentExit {
  /** 0: stopped by a signal; 2: the daemon told the agent to stop. */
  code: 0 | 2;
  reason: string;
}

type Answer = { kind: 'ok'; body: Record<string, unknown> } | { kind: 'stop'; reason: string } | { kind: 'aborted' };
/** An answer worth another try (5xx, 429, …), already logged by `attempt`. */
const RETRY = new Error('the daemon asked to try again');

const REQUEST_TIMEOUT_MS = 10_000;

/** Waits `ms`, or less when the signal fires. */
const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

export class BoxyardAgent {
  private readonly base: string;
  constructor(private readonly opts: AgentClientOptions) {
    // A typo in --url would otherwise look like a daemon that is away, retried forever.
    if (!URL.canParse(opts.url) || !/^https?:$/.test(new URL(opts.url).protocol))
      throw new Error(`--url must be an http(s) URL such as http://boxyard.lan:4780 (got "${opts.url}")`);
    this.base = opts.url.replace(/\/+$/, '');
  }

  async run(signal: AbortSignal): Promise<AgentExit> {
    const reg = await this.call(pathTo('agent', AGENT.register, {}), { name: this.opts.name ?? null }, signal);
    if (reg.kind === 'aborted') return { code: 0, reason: 'stopped before registering' };
    if (reg.kind === 'stop') return { code: 2, reason: reg.reason };
    const agent = reg.body.agent as { id: string; pool_id: string };
    let interval = Number(reg.body.ping_interval_seconds) || 10;
    this.opts.log(`registered as ${agent.id} in pool ${agent.pool_id}; reporting every ${interval}s`);
    const path = pathTo('agent', AGENT.status, { id: agent.id });
    for (;;) {
      await sleep(interval * 1000, signal);
      if (signal.aborted) break;
      const r = await this.call(path, { status: this.opts.status?.() ?? 'idle' }, signal);
      if (r.kind === 'aborted') break;
      if (r.kind === 'stop') return { code: 2, reason: r.reason };
      interval = Number(r.body.ping_interval_seconds) || interval;
    }
    await this.attempt(path, { status: 'exited' }, AbortSignal.timeout(5_000)).catch(() => undefined);
    this.opts.log(`reported exited for ${agent.id}`);
    return { code: 0, reason: 'stopped by signal' };
  }

  /** One request, retried with doubling backoff (lib/backoff.ts) while the daemon is away or failing (5xx, 429). */
  private async call(path: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    try {
      return await retrying(
        async () => {
          const answer = await this.attempt(
            path,
            body,
            AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
          );
          if (!answer) throw RETRY;
          return answer;
        },
        {
          backoff: { firstMs: this.opts.minBackoffMs ?? 500, maxMs: this.opts.maxBackoffMs ?? 30_000 },
          signal,
          onRetry: (err, wait) => {
            if (err !== RETRY)
              this.opts.log(
                `daemon unreachable (${err instanceof Error ? err.message : String(err)}); retrying in ${wait / 1000}s`,
              );
          },
        },
      );
    } catch (err) {
      if (signal.aborted) return { kind: 'aborted' };
      throw err;
    }
  }

  /** An answer, or undefined for a retryable failure (logged). Throws when the daemon is unreachable. */
  private async attempt(path: string, body: unknown, signal: AbortSignal): Promise<Answer | undefined> {
    const res = await (this.opts.fetch ?? fetch)(this.base + path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.opts.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(body),
      signal,
    });
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    const message = Array.isArray(json.errors) ? json.errors.join('; ') : `HTTP ${res.status}`;
    if (json.action === 'stop') return { kind: 'stop', reason: String(json.reason ?? message) };
    if (res.ok) return { kind: 'ok', body: json };
    // The daemon says stop where retrying cannot help: an error with its code and no "stop" is
    // worth another try (rate_limited, request_timeout, maintenance, 5xx). An answer without a
    // code is not the daemon's (a proxy's): only 408, 429 and 5xx are.
    const code = errorCodeOf(json);
    if (code || res.status === 408 || res.status === 429 || res.status >= 500) {
      this.opts.log(`daemon answered ${res.status}${code ? ` ${code}` : ''} (${message}); retrying`);
      return undefined;
    }
    return { kind: 'stop', reason: message };
  }
}
