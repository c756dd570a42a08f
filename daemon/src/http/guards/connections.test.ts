import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientIdle, connectionSettings, openFileLimit } from './connections';

const config = (env: Record<string, string> = {}) => loadConfig(env, { dataDir: '/tmp/x' });

describe('connection settings', () => {
  it('defaults: 20 s for headers, 60 s idle, keep-alive past the agents\' ping, 128 per address', () => {
    expect(connectionSettings(config(), { fdLimit: 20_000 })).toEqual({
      headersTimeoutMs: 20_000, bodyIdleMs: 60_000, keepAliveMs: 65_000, maxPerAddress: 128, maxTotal: 9872,
    });
  });

  it('takes the environment, and keeps keep-alive 5 s past a long ping interval', () => {
    const s = connectionSettings(config({
      BOXYARD_HEADERS_TIMEOUT_SECONDS: '5', BOXYARD_BODY_IDLE_SECONDS: '300', BOXYARD_AGENT_PING: '120',
      BOXYARD_MAX_CONNECTIONS_PER_ADDRESS: '2000', BOXYARD_MAX_CONNECTIONS: '3000',
    }), { fdLimit: 20_000 });
    expect(s).toEqual({ headersTimeoutMs: 5000, bodyIdleMs: 300_000, keepAliveMs: 125_000, maxPerAddress: 2000, maxTotal: 3000 });
  });

  it('derives the total cap from the open-file limit, with room for the blobs connections read', () => {
    expect(connectionSettings(config(), { fdLimit: 1024 }).maxTotal).toBe(384);
    expect(connectionSettings(config(), { fdLimit: 200 }).maxTotal).toBe(64);
    expect(connectionSettings(config(), { fdLimit: undefined }).maxTotal).toBe(4096);
  });

  it('reads the soft open-file limit from a limits file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-limits-'));
    writeFileSync(join(dir, 'limits'), 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n');
    expect(openFileLimit(join(dir, 'limits'))).toBe(1024);
    expect(openFileLimit(join(dir, 'missing'))).toBeUndefined();
  });
});

describe('an idle connection', () => {
  const inFlight = (req: { complete: boolean; paused?: boolean; buffered?: number }, res: { headersSent: boolean }) => ({
    req: { complete: req.complete, isPaused: () => req.paused ?? false, readableLength: req.buffered ?? 0 } as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
  });

  it('is dropped when its client stopped sending a body it reads, or stopped reading an answer, or after an answer', () => {
    expect(clientIdle(inFlight({ complete: false }, { headersSent: false }))).toBe(true);
    expect(clientIdle(inFlight({ complete: true }, { headersSent: true }))).toBe(true);
  });

  it('is kept while the daemon is behind: a body it paused or has not read yet, a whole request it works on', () => {
    expect(clientIdle(inFlight({ complete: false, paused: true }, { headersSent: false }))).toBe(false);
    expect(clientIdle(inFlight({ complete: false, buffered: 65536 }, { headersSent: false }))).toBe(false);
    expect(clientIdle(inFlight({ complete: true }, { headersSent: false }))).toBe(false);
  });

  it('before any request is left to the headers deadline (408)', () => {
    expect(clientIdle(undefined)).toBe(false);
  });
});
