import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from './log';

const SECRET = 'Zq3xV9bN2mK8pL4wR7tY1uE5iO0aS6dF9gH2jK4lQ8c';

/** A logger at debug level writing into an array of lines. */
function captured() {
  const lines: string[] = [];
  return { lines, log: createLogger('debug', { write: (s: string) => void lines.push(s) }) };
}

describe('scrubSecrets', () => {
  it.each([
    ['an upload URL', `PUT http://127.0.0.1:4780/uploads/${SECRET} failed`],
    ['an upload path in JSON', `{"path":"/uploads/${SECRET}"}`],
    ['a bearer token', `authorization failed for Bearer ${SECRET}`],
    ['a header line', `X-Atlas-Token: ${SECRET}`],
    ['a service-token header line', `x-service-token=${SECRET}`],
    ['a query token', `GET /api/v1/box/a/b?access_token=${SECRET}&x=1`],
    ['an S3 signature', `GET https://bucket.s3.example/a.box?X-Amz-Signature=${SECRET}`],
    ['user-info in a URL', `fetch https://mirror:${SECRET}@boxes.example/a.box failed`],
    ['a JSON password field', `{"user":{"login":"admin","password":"${SECRET}"}}`],
    ['a JSON token field at any depth', `{"a":{"b":{"upstreamToken":"${SECRET}"}}}`],
    ['an escaped quote inside a secret field', `{"secret":"a\\"${SECRET}"}`],
  ])('takes out %s', (_what, text) => {
    const out = scrubSecrets(text);
    expect(out).not.toContain(SECRET);
    expect(out).toContain('[redacted]');
  });

  it('leaves ordinary text alone', () => {
    const text = '{"msg":"garbage collected","blobs":3,"path":"/api/v1/box/acme/debian","code":"ENOSPC"}';
    expect(scrubSecrets(text)).toBe(text);
  });
});

describe('createLogger', () => {
  it('writes no credential from fields, headers, messages or errors', () => {
    const { lines, log } = captured();
    log.debug(
      {
        req: {
          method: 'GET',
          url: `/x?access_token=${SECRET}`,
          headers: {
            authorization: `Bearer ${SECRET}`,
            'x-atlas-token': SECRET,
            'x-service-token': SECRET,
            cookie: `s=${SECRET}`,
          },
        },
      },
      'request',
    );
    log.info(
      { upstream: { name: 'hcp', token: SECRET }, config: { adminPassword: SECRET, upstreamToken: SECRET } },
      'settings',
    );
    log.warn(`upload to /uploads/${SECRET} failed`);
    log.error(
      { err: new Error(`GET https://u:${SECRET}@mirror.example/b.box?token=${SECRET} refused`) },
      'mirror download failed',
    );
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(JSON.parse(lines[0]).req.headers).toEqual({
      authorization: '[redacted]',
      'x-atlas-token': '[redacted]',
      'x-service-token': '[redacted]',
      cookie: '[redacted]',
    });
    expect(JSON.parse(lines[3]).err.message).toBe(
      'GET https://[redacted]@mirror.example/b.box?token=[redacted] refused',
    );
  });

  it('keeps to its level', () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (s: string) => void lines.push(s) });
    log.info('quiet');
    log.warn('loud');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['loud']);
  });
});
