import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, errorMessages, isApiError, makeFetcher, retryQuery } from '../../renderer/src/api/client';

describe('the UI fetch helper', () => {
  it('reads both error dialects', () => {
    expect(errorMessages({ errors: ['Box not found.'], success: false, code: 'not_found' })).toEqual([
      'Box not found.',
    ]);
    expect(errorMessages({ errors: [{ status: '404', title: 'not found', detail: 'Pool "x" not found.' }] })).toEqual([
      'Pool "x" not found.',
    ]);
    expect(errorMessages({ errors: [{ status: '412', title: 'precondition failed' }] })).toEqual([
      'precondition failed',
    ]);
    expect(errorMessages({ message: 'no errors key' })).toEqual([]);
    expect(errorMessages(null)).toEqual([]);
  });

  it("asks a query again only for failures that may pass, never for the daemon's refusal", () => {
    const refusal = (status: number, code: string) => new ApiError(status, ['no'], { errors: ['no'], code });
    expect(retryQuery(0, refusal(404, 'not_found'))).toBe(false);
    expect(retryQuery(0, refusal(403, 'forbidden'))).toBe(false);
    expect(retryQuery(0, refusal(503, 'maintenance'))).toBe(false);
    expect(retryQuery(0, refusal(502, 'upstream_failed'))).toBe(true);
    expect(retryQuery(0, refusal(429, 'rate_limited'))).toBe(true);
    expect(retryQuery(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(retryQuery(3, new TypeError('Failed to fetch'))).toBe(false);
  });

  describe('against a server', () => {
    let server: Server;
    let base: string;
    const seen: Array<{ auth?: string; csrf?: string; type?: string; accept?: string }> = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        seen.push({
          auth: req.headers.authorization,
          csrf: req.headers['x-boxyard-csrf'] as string | undefined,
          type: req.headers['content-type'],
          accept: req.headers.accept,
        });
        if (req.url === '/ok') return void res.end('{"ok":true}');
        if (req.url === '/401') {
          res.statusCode = 401;
          return void res.end('{"errors":["Invalid token."],"success":false,"code":"unauthorized"}');
        }
        // A wrong current password is 403 with its own code: it must not sign the UI out.
        if (req.url === '/403') {
          res.statusCode = 403;
          return void res.end(
            '{"errors":["The current password is wrong."],"success":false,"code":"reauthentication_required"}',
          );
        }
        if (req.url === '/502') {
          res.statusCode = 502;
          return void res.end('<html>proxy error</html>');
        }
        res.statusCode = 412;
        res.setHeader('content-type', 'application/vnd.api+json');
        res.end(
          '{"errors":[{"status":"412","code":"precondition_failed","title":"precondition failed","detail":"The agent is still busy."}]}',
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server.close();
    });

    it('sends no token but the CSRF header and the right media type, and turns errors into ApiError', async () => {
      let signedOut = 0;
      const api = makeFetcher(() => {
        signedOut += 1;
      });
      await expect(api(`${base}/ok`, { method: 'POST', body: {} })).resolves.toEqual({ ok: true });
      // The session is an httpOnly cookie the browser sends; the page itself holds no token.
      expect(seen.at(-1)).toEqual({ auth: undefined, csrf: '1', type: 'application/json', accept: 'application/json' });

      const busy = await api(`${base}/412`, { method: 'DELETE', jsonapi: true }).catch((e: unknown) => e);
      expect(busy).toBeInstanceOf(ApiError);
      expect(busy).toMatchObject({ status: 412, code: 'precondition_failed', message: 'The agent is still busy.' });
      expect(isApiError(busy, 'precondition_failed')).toBe(true);
      expect(seen.at(-1)?.accept).toBe('application/vnd.api+json');
      expect(signedOut).toBe(0);

      await expect(api(`${base}/401`)).rejects.toMatchObject({
        status: 401,
        code: 'unauthorized',
        message: 'Invalid token.',
      });
      expect(signedOut).toBe(1);
      await expect(api(`${base}/403`)).rejects.toMatchObject({ status: 403, code: 'reauthentication_required' });
      expect(signedOut).toBe(1);
      // An answer that is not the daemon's has no code.
      const proxy = await api(`${base}/502`).catch((e: unknown) => e);
      expect(proxy).toMatchObject({ status: 502, code: undefined, message: '<html>proxy error</html>' });
    });
  });
});
