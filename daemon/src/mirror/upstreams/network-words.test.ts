import { describe, expect, it } from 'vitest';
import { networkWords } from './network-words';

/** What Node's fetch throws: a TypeError "fetch failed" whose cause is undici's or the socket's error. */
const fetchFailed = (cause: object) => new TypeError('fetch failed', { cause });
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('networkWords', () => {
  it('a refused connection names the address and port', () => {
    const err = fetchFailed(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:4321'));
    expect(networkWords('http://127.0.0.1:4321/catalog', err)).toBe(
      'nothing answers at 127.0.0.1:4321 (the connection was refused)',
    );
    // The scheme's port is spelled out.
    expect(networkWords('https://127.0.0.1/', err)).toBe(
      'nothing answers at 127.0.0.1:443 (the connection was refused)',
    );
  });

  it("fetch's blocked ports are not 'bad port' but what to do", () => {
    const words = networkWords('http://127.0.0.1:1/', fetchFailed(new Error('bad port')));
    expect(words).toBe(
      'Boxyard does not connect to port 1 (127.0.0.1:1): it belongs to another protocol, so serve the upstream on another port',
    );
    expect(words).not.toMatch(/bad port/);
  });

  it('a name that does not resolve, and a name server that does not answer', () => {
    const lookup = (code: string) => fetchFailed(coded(code, `getaddrinfo ${code} boxes.invalid`));
    expect(networkWords('https://boxes.invalid/', lookup('ENOTFOUND'))).toBe('the name boxes.invalid does not resolve');
    expect(networkWords('https://boxes.invalid/', lookup('EAI_AGAIN'))).toBe(
      'the name boxes.invalid does not resolve (the name server did not answer)',
    );
  });

  it('certificates: not trusted, expired, for another name', () => {
    const url = 'https://lab.example:8443/';
    for (const code of ['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT'])
      expect(networkWords(url, fetchFailed(coded(code)))).toBe(
        'the certificate of lab.example:8443 is not trusted: give the upstream the CA that signed it',
      );
    expect(networkWords(url, fetchFailed(coded('CERT_HAS_EXPIRED')))).toBe(
      'the certificate of lab.example:8443 has expired',
    );
    expect(networkWords(url, fetchFailed(coded('ERR_TLS_CERT_ALTNAME_INVALID')))).toBe(
      'the certificate of lab.example:8443 is not for the name lab.example',
    );
  });

  it('timeouts: the upstream timeout that ran out, or the socket connect timeout', () => {
    const aborted = new DOMException('This operation was aborted', 'AbortError');
    expect(networkWords('http://127.0.0.1:8080/', aborted, 30)).toBe('127.0.0.1:8080 did not answer within 30 s');
    expect(networkWords('http://127.0.0.1:8080/', fetchFailed(coded('UND_ERR_CONNECT_TIMEOUT')))).toBe(
      '127.0.0.1:8080 did not answer in time',
    );
  });

  it('a cause nested in a cause, a closed connection, no route, and something unknown', () => {
    const nested = fetchFailed(Object.assign(new Error('outer'), { cause: coded('ECONNRESET', 'socket hang up') }));
    expect(networkWords('http://[::1]:9000/', nested)).toBe('[::1]:9000 closed the connection before answering');
    expect(networkWords('http://10.0.0.9/', fetchFailed(coded('EHOSTUNREACH')))).toBe('there is no route to 10.0.0.9');
    expect(networkWords('http://127.0.0.1:80/', fetchFailed(new Error('something odd')))).toBe('something odd');
  });
});
