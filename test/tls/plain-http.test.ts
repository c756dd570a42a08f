import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { freePort } from '../helpers/ports';
import { parseAnswer } from '../helpers/sockets';

/** One plain-HTTP request written by hand to `port`: the raw answer, up to the close the daemon asks for. */
function plain(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1', () => s.write(request));
    let out = '';
    s.on('data', (b) => {
      out += b.toString();
    });
    s.on('close', () => resolve(out));
    s.on('error', reject);
    setTimeout(() => s.destroy(), 5000).unref();
  });
}

const SECRET = 'SECRET-token-4b1d';
/** A box file's URL as the catalog hands it out (http/route-table.ts ROOT.download). */
const DOWNLOAD = '/acme/boxes/web/versions/1.0.0/providers/virtualbox/amd64/vagrant.box';

describe('plain HTTP beside --tls auto: never a credential redirected or echoed', () => {
  let d: TestDaemon;
  let httpPort: number;
  const port = () => Number(new URL(d.url).port);
  const origin = () => `https://127.0.0.1:${port()}`;
  /** `method path` over plain HTTP to `to`, with the extra header lines given. */
  const ask = async (to: number, method: string, path: string, headers: string[] = []) => {
    const raw = await plain(
      to,
      [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${to}`, ...headers, '', ''].join('\r\n'),
    );
    return { raw, ...parseAnswer(raw) };
  };

  beforeAll(async () => {
    httpPort = await freePort();
    d = await startTestDaemon({ config: { tls: 'auto', httpPort } });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it("answers plain HTTP on its HTTPS port with the https:// address alone, in each API's dialect, doing nothing", async () => {
    const page = await ask(port(), 'GET', '/ui/boxes?page=2');
    expect(page.status).toBe(400);
    expect(page.body).toBe(`This Boxyard daemon speaks HTTPS. Open ${origin()}\n`);
    expect(page.raw).not.toContain('/ui/boxes');
    const body = '{"user":{"login":"admin","password":"admin-password-1"}}';
    const login = await plain(
      port(),
      `POST /api/v1/authenticate?x=${SECRET} HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(login).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(parseAnswer(login).body)).toMatchObject({
      success: false,
      code: 'https_required',
      errors: [expect.stringContaining(`send the request to ${origin()} (the same path)`)],
    });
    for (const echoed of ['/api/v1/authenticate', SECRET, 'admin-password-1']) expect(login).not.toContain(echoed);
    const tfe = await ask(port(), 'GET', '/api/v2/organizations', [`Authorization: Bearer ${SECRET}`]);
    expect(JSON.parse(tfe.body)).toMatchObject({ errors: [{ status: '400', code: 'https_required' }] });
    expect(tfe.raw).not.toContain(SECRET);
    expect(tfe.raw).not.toContain('/api/v2/organizations');
    // A page asked with a session cookie on the HTTPS port: the API's error, not the page's answer.
    const cookie = await ask(port(), 'GET', '/ui/', [`Cookie: __Host-boxyard-session=${SECRET}`]);
    expect(cookie).toMatchObject({ status: 400, body: expect.stringContaining('"code":"https_required"') });
    // Nothing was done: no token was made by the plain login.
    const tokens = await d.http.withToken(d.adminToken).get('/api/boxyard/tokens');
    expect(tokens.json.tokens.filter((t: { session: boolean }) => !t.session)).toHaveLength(1);
  });

  it('--http-port redirects a page asked without a credential, keeping its path and query', async () => {
    const get = await ask(httpPort, 'GET', '/ui/boxes?page=2');
    expect(get.status).toBe(301);
    expect(get.headers.location).toBe(`${origin()}/ui/boxes?page=2`);
    for (const path of ['/', '/ui']) {
      const head = await ask(httpPort, 'HEAD', path);
      expect(head.status, path).toBe(301);
      expect(head.headers.location).toBe(`${origin()}${path}`);
    }
  });

  it('names a host asked for as an IPv6 address in brackets, once', async () => {
    const asked = (to: number) => plain(to, `GET /ui/ HTTP/1.1\r\nHost: [::1]:${to}\r\n\r\n`).then(parseAnswer);
    expect((await asked(httpPort)).headers.location).toBe(`https://[::1]:${port()}/ui/`);
    expect((await asked(port())).body).toBe(`This Boxyard daemon speaks HTTPS. Open https://[::1]:${port()}\n`);
  });

  it('--http-port refuses a download with ?access_token= and an API call with a token, echoing neither token nor path', async () => {
    const download = await ask(httpPort, 'GET', `${DOWNLOAD}?access_token=${SECRET}`);
    expect(download.status).toBe(400);
    expect(JSON.parse(download.body)).toEqual({
      success: false,
      code: 'https_required',
      errors: [expect.stringContaining(`send the request to ${origin()} (the same path)`)],
    });
    const api = await ask(httpPort, 'GET', '/api/v1/box/acme/web', [`Authorization: Bearer ${SECRET}`]);
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body)).toMatchObject({ success: false, code: 'https_required' });
    const legacy = await ask(httpPort, 'GET', DOWNLOAD, [`X-Atlas-Token: ${SECRET}`]);
    expect(legacy.status).toBe(400);
    for (const a of [download, api, legacy]) {
      expect(a.headers.location).toBeUndefined();
      for (const echoed of [SECRET, 'acme', 'vagrant.box']) expect(a.raw).not.toContain(echoed);
    }
    const post = parseAnswer(
      await plain(
        httpPort,
        `POST /api/v1/boxes HTTP/1.1\r\nHost: 127.0.0.1:${httpPort}\r\nAuthorization: Bearer x\r\nContent-Length: 2\r\n\r\n{}`,
      ),
    );
    expect(post.status).toBe(400);
    expect(post.headers.location).toBeUndefined();
  });

  it('--http-port refuses the catalog and a page that carries a credential in any form', async () => {
    const catalog = await ask(httpPort, 'GET', '/acme/web');
    expect(catalog.status).toBe(400);
    expect(JSON.parse(catalog.body)).toMatchObject({ code: 'https_required' });
    expect(catalog.raw).not.toContain('acme');
    const carried = [
      ['/ui/', [`Cookie: theme=dark; __Host-boxyard-session=${SECRET}`]],
      ['/ui/', [`Authorization: Bearer ${SECRET}`]],
      ['/ui/', [`Authorization: Basic ${Buffer.from(`admin:${SECRET}`).toString('base64')}`]],
      ['/', [`X-Atlas-Token: ${SECRET}`]],
      [`/ui/boxes?access_token=${SECRET}`, []],
      [`/ui/boxes?access_token=${SECRET}&access_token=again`, []],
    ] as const;
    for (const [path, headers] of carried) {
      const a = await ask(httpPort, 'GET', path, [...headers]);
      expect(a.status, `${path} ${headers.join()}`).toBe(400);
      expect(a.headers.location).toBeUndefined();
      expect(a.raw).not.toContain(SECRET);
      expect(a.raw).not.toContain('/ui/boxes');
    }
  });
});
