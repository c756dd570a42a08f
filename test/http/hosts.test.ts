import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config';
import { AllowedHosts, hostOfHeader } from '../../daemon/src/http/guards/hosts';
import type { HostSources } from '../../daemon/src/http/own-names';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { countRows, createBox } from '../helpers/registry';
import { spawnDaemon } from '../helpers/spawn-daemon';
import { withHost } from '../helpers/with-host';

// DNS rebinding and Host reflection. A page on attacker.example whose name is rebound to
// the daemon's address sends `Host: attacker.example:PORT`; it must be refused before any route.

const portOf = (d: TestDaemon) => new URL(d.url).port;

describe('the Host allowlist (default: loopback names and the listen address)', () => {
  let d: TestDaemon;
  let alice: { token: string };
  beforeAll(async () => {
    d = await startTestDaemon();
    alice = await d.user('alice');
    await createBox(d.http.withToken(alice.token), 'alice', 'base');
  });
  afterAll(async () => {
    await d?.stop();
  });

  it("refuses a rebound name with 421 on every path, /healthz and the UI included, in the path's dialect", async () => {
    const host = `attacker.example:${portOf(d)}`;
    for (const path of ['/healthz', '/ui/', '/', '/api/v1/search', '/alice/base', '/api/boxyard/session']) {
      const r = await withHost(d.url, host, { path });
      expect(r.status, path).toBe(421);
      expect(r.json, path).toEqual({
        errors: [expect.stringMatching(/does not answer to the host "attacker\.example:\d+".*BOXYARD_ALLOWED_HOSTS/)],
        success: false,
        code: 'misdirected',
      });
      // The refusal carries the security headers too.
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
    const jsonapi = await withHost(d.url, host, {
      path: '/api/v2/organizations',
      headers: { accept: 'application/vnd.api+json' },
    });
    expect(jsonapi.status).toBe(421);
    expect(jsonapi.json).toEqual({
      errors: [
        {
          status: '421',
          code: 'misdirected',
          title: 'misdirected request',
          detail: expect.stringContaining('attacker.example'),
        },
      ],
    });
  });

  it('runs no route for a refused Host, even with a valid token', async () => {
    const before = await countRows(d, 'boxes');
    const r = await withHost(d.url, `attacker.example:${portOf(d)}`, {
      method: 'POST',
      path: '/api/v1/boxes',
      headers: { authorization: `Bearer ${alice.token}` },
      body: { box: { username: 'alice', name: 'rebound' } },
    });
    expect(r.status).toBe(421);
    expect(await countRows(d, 'boxes')).toBe(before);
    const upload = await withHost(d.url, `attacker.example:${portOf(d)}`, {
      path: '/api/v1/box/alice/base/version/1.0.0/provider/virtualbox/upload',
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(upload.status).toBe(421);
    expect(upload.text).not.toContain('upload_path');
  });

  it('answers the loopback names and addresses, in any case, with a port or a trailing dot', async () => {
    const port = portOf(d);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost.:${port}`,
      `[::1]:${port}`,
      'localhost',
      `127.0.0.1:1`,
    ]) {
      expect((await withHost(d.url, host, { path: '/healthz' })).status, host).toBe(200);
    }
  });

  it('refuses malformed Host headers and lookalikes', async () => {
    const port = portOf(d);
    for (const host of [
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `127.0.0.2:${port}`,
      `localhost:${port}:1`,
      `localhost:123456`,
      'user@localhost',
      '[::1',
    ]) {
      const r = await withHost(d.url, host, { path: '/healthz' });
      expect([400, 421], host).toContain(r.status);
      expect(r.text, host).not.toContain('"status":"ok"');
    }
  });

  it('lets a request without a Host header (HTTP/1.0) through: nothing to reflect, not a browser', async () => {
    const socket = connect(Number(portOf(d)), '127.0.0.1');
    socket.write('GET /healthz HTTP/1.0\r\n\r\n');
    let text = '';
    for await (const chunk of socket) text += chunk.toString();
    expect(text).toMatch(/^HTTP\/1\.[01] 200 /);
  });

  it('builds upload links from the validated Host when no public URL is set', async () => {
    const port = portOf(d);
    expect(
      (await d.http.withToken(alice.token).post('/api/v1/box/alice/base/versions', { version: { version: '1.0.0' } }))
        .status,
    ).toBe(200);
    expect(
      (
        await d.http
          .withToken(alice.token)
          .post('/api/v1/box/alice/base/version/1.0.0/providers', { provider: { name: 'virtualbox' } })
      ).status,
    ).toBe(200);
    const r = await withHost(d.url, `localhost:${port}`, {
      path: '/api/v1/box/alice/base/version/1.0.0/provider/virtualbox/upload',
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.upload_path).toMatch(new RegExp(`^http://localhost:${port}/uploads/`));
  });
});

describe('the Host allowlist with a public URL and BOXYARD_ALLOWED_HOSTS', () => {
  let d: TestDaemon;
  let alice: { token: string };
  beforeAll(async () => {
    d = await startTestDaemon({
      config: { publicUrl: 'https://boxes.example.org/', allowedHosts: ['alias.lan', '.corp.example'] },
    });
    alice = await d.user('alice');
    await createBox(d.http.withToken(alice.token), 'alice', 'base');
    expect(
      (await d.http.withToken(alice.token).post('/api/v1/box/alice/base/versions', { version: { version: '1.0.0' } }))
        .status,
    ).toBe(200);
    expect(
      (
        await d.http
          .withToken(alice.token)
          .post('/api/v1/box/alice/base/version/1.0.0/providers', { provider: { name: 'virtualbox' } })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await d?.stop();
  });

  it("answers the public URL's host and the configured names (a leading dot: the domain and its subdomains)", async () => {
    for (const host of [
      'boxes.example.org',
      'BOXES.example.org:443',
      'alias.lan:4780',
      'corp.example',
      'ci.corp.example',
      'a.b.corp.example',
    ]) {
      expect((await withHost(d.url, host, { path: '/healthz' })).status, host).toBe(200);
    }
    for (const host of ['evilcorp.example', 'corp.example.attacker.example', 'other.lan', 'example.org']) {
      expect((await withHost(d.url, host, { path: '/healthz' })).status, host).toBe(421);
    }
  });

  it('builds links from the public URL whatever allowed Host was used', async () => {
    for (const host of ['alias.lan:9999', `127.0.0.1:${portOf(d)}`]) {
      const r = await withHost(d.url, host, {
        path: '/api/v1/box/alice/base/version/1.0.0/provider/virtualbox/upload',
        headers: { authorization: `Bearer ${alice.token}` },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.upload_path).toMatch(/^https:\/\/boxes\.example\.org\/uploads\//);
    }
  });
});

describe('the Host allowlist and the listen address', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ config: { host: '127.0.0.2' } });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('answers the address it listens on, not another one', async () => {
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.2:/);
    expect((await withHost(d.url, `127.0.0.2:${portOf(d)}`, { path: '/healthz' })).status).toBe(200);
    expect((await withHost(d.url, `127.0.0.3:${portOf(d)}`, { path: '/healthz' })).status).toBe(421);
  });
});

describe('boxyard serve --allowed-hosts', () => {
  it('answers the names given on the command line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-hosts-'));
    const daemon = await spawnDaemon({ dataDir, args: ['--allowed-hosts', 'alias.lan,.corp.example'] });
    try {
      for (const [host, status] of [
        ['alias.lan', 200],
        ['ci.corp.example:8080', 200],
        ['attacker.example', 421],
      ] as const) {
        expect((await withHost(daemon.url, host, { path: '/healthz' })).status, host).toBe(status);
      }
    } finally {
      await daemon.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('AllowedHosts (the policy)', () => {
  const sources = (addresses: string[], name = 'labhost'): HostSources => ({
    interfaceAddresses: () => addresses,
    machineName: () => name,
  });
  const config = (host: string, extra: { publicUrl?: string; allowedHosts?: string[] } = {}) => ({
    host,
    publicUrl: extra.publicUrl,
    allowedHosts: extra.allowedHosts ?? [],
  });

  it('bound to all interfaces: every interface address and the machine name, read again for an unknown Host', () => {
    const addresses = ['127.0.0.1', '192.168.1.20', 'fe80::1%eth0', '::1'];
    for (const bind of ['0.0.0.0', '::']) {
      const allowed = new AllowedHosts(config(bind), sources(addresses, 'LabHost'));
      expect(
        ['192.168.1.20', 'fe80::1', 'labhost', 'labhost.local', 'localhost'].map((h) => allowed.allows(h)),
      ).toEqual([true, true, true, true, true]);
      expect(['192.168.1.21', 'attacker.example', 'labhost.attacker.example'].map((h) => allowed.allows(h))).toEqual([
        false,
        false,
        false,
      ]);
    }
    // DHCP gave the machine a new address after start.
    const allowed = new AllowedHosts(config('0.0.0.0'), sources(addresses));
    addresses.push('10.0.0.7');
    expect(allowed.allows('10.0.0.7')).toBe(true);
  });

  it('bound to one address: that address only, not the others of the machine', () => {
    const allowed = new AllowedHosts(config('192.168.1.20'), sources(['192.168.1.20', '10.0.0.7']));
    expect(['192.168.1.20', '127.0.0.1', 'localhost', '10.0.0.7', 'labhost'].map((h) => allowed.allows(h))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('`*` allows any host (behind a proxy that checks names itself)', () => {
    expect(new AllowedHosts(config('127.0.0.1', { allowedHosts: ['*'] }), sources([])).allows('anything.example')).toBe(
      true,
    );
  });

  it('reads host names out of Host headers', () => {
    expect(['Example.org:80', 'example.org.', '[::1]:4780', '[FE80::1]', '10.0.0.7:4780'].map(hostOfHeader)).toEqual([
      'example.org',
      'example.org',
      '::1',
      'fe80::1',
      '10.0.0.7',
    ]);
    expect(['a b', 'a/b', 'u@h', 'h:', 'h:123456', '[::1', ''].map(hostOfHeader)).toEqual(Array(7).fill(undefined));
  });

  it('BOXYARD_ALLOWED_HOSTS is a comma-separated list of names, not URLs', () => {
    expect(loadConfig({ BOXYARD_ALLOWED_HOSTS: ' boxes.lan, .corp.example ,10.0.0.7,[::1]' }).allowedHosts).toEqual([
      'boxes.lan',
      '.corp.example',
      '10.0.0.7',
      '[::1]',
    ]);
    expect(loadConfig({}).allowedHosts).toEqual([]);
    expect(() => loadConfig({ BOXYARD_ALLOWED_HOSTS: 'http://boxes.lan' })).toThrow(/allowedHosts/);
  });
});
