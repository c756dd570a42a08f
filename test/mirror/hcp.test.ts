import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { allowHcpStorage, startHcpUpstream, type HcpUpstream } from '../helpers/hcp-upstream';
import { hcpOrganization } from '../helpers/hcp-upstream-boxes';
import { mirrorOnce, sha256, waitForJob } from '../helpers/mirror';

/**
 * Leaving HCP Vagrant with everything. Against an upstream shaped like it (box API,
 * catalog, files behind 302s to presigned storage that refuses an Authorization header,
 * architectures, a private box, a revoked version, a sha512 checksum), a mirror copies what the
 * owner wrote: visibility, both descriptions, release notes; and follows the upstream's later
 * changes, except what was edited here.
 */
describe('mirroring an HCP Vagrant organization', () => {
  const TOKEN = 'hcp-token-1';
  const amd = randomBytes(40_000);
  const arm = randomBytes(30_000);
  let hcp: HcpUpstream;
  let d: TestDaemon;
  let admin: HttpClient;

  beforeAll(async () => {
    hcp = await startHcpUpstream({ token: TOKEN, boxes: hcpOrganization({ amd, arm }) });
    d = await startTestDaemon();
    admin = d.http.withToken(d.adminToken);
    await allowHcpStorage(admin);
  });
  afterAll(async () => {
    await d?.stop();
    await hcp?.stop();
  });

  /** The upstream's box hashi/web, as the fixture serves it (a test changes it in place). */
  const upstreamWeb = () => {
    const box = hcp.boxes.find((b) => b.name === 'web');
    assert(box, 'the HCP fixture has no box named web');
    return box;
  };

  const boxApi = async (tag: string, http: HttpClient = admin) => {
    const r = await http.get(`/api/v2/box/${tag}`);
    return { status: r.status, json: r.json };
  };

  it('copies the whole organization as its owner wrote it; a box the token may not see is listed as skipped', async () => {
    const { job } = await mirrorOnce(admin, { upstream: { url: hcp.url, token: TOKEN }, source: 'hashi' });
    expect(job).toMatchObject({ state: 'done', files_total: 6, files_done: 6, error_code: null });
    expect(job.published).toEqual(
      expect.arrayContaining([
        { box: 'hashi/web', versions: ['1.1.0', '1.0.0'] },
        { box: 'hashi/secret', versions: ['1.1.0', '1.0.0'] },
      ]),
    );
    expect((job as unknown as { skipped: unknown[] }).skipped).toEqual([
      { box: 'hashi/hidden', reason: expect.stringMatching(/403.*not authorized/) },
    ]);
    const web = await boxApi('hashi/web');
    expect(web.json).toMatchObject({
      private: false,
      short_description: 'web: a base box',
      description_markdown: '# web\n\nBuilt with *Packer*.\n\n- item',
    });
    expect(
      web.json.versions.map((v: { version: string; description_markdown: string; status: string }) => [
        v.version,
        v.status,
        v.description_markdown,
      ]),
    ).toEqual([
      ['1.1.0', 'active', 'Adds arm64.'],
      ['1.0.0', 'active', 'First **release**.'],
    ]);
    const arm64 = web.json.versions[0].providers.find((p: { architecture: string }) => p.architecture === 'arm64');
    expect(arm64).toMatchObject({ default_architecture: false, checksum: sha256(arm), checksum_type: 'sha256' });
    // Public stays public, private stays private, though the upstream was read with a token.
    expect((await boxApi('hashi/web', d.http)).status).toBe(200);
    expect((await boxApi('hashi/secret')).json.private).toBe(true);
    expect((await boxApi('hashi/secret', d.http)).status).toBe(404);
    expect((await d.http.get('/hashi/secret')).status).toBe(404);
    // The token went to the registry only: the storage host never saw it (it would have refused).
    expect(hcp.requests.filter((r) => r.server === 'storage' && r.method === 'GET')).not.toEqual([]);
    expect(hcp.requests.filter((r) => r.server === 'storage' && r.authorization !== undefined)).toEqual([]);
  });

  it('a re-run takes what the upstream changed, except what was edited here, and says which in the box page numbers', async () => {
    const up = upstreamWeb();
    // Edited here: the short description.
    expect((await admin.put('/api/v1/box/hashi/web', { box: { short_description: 'Our own words' } })).status).toBe(
      200,
    );
    up.short_description = 'web: changed upstream';
    up.description = '# web\n\nNow with *more*.';
    up.versions[0].description = 'First release, with notes.';
    up.private = true;
    const mirrors = (await admin.get('/api/boxyard/mirrors')).json.mirrors;
    const job = await waitForJob(
      admin,
      (await admin.post(`/api/boxyard/mirrors/${mirrors[0].id}/run`, {})).json.job.id,
    );
    expect(job.state, job.message ?? '').toBe('done');
    expect(job.published).toEqual(
      expect.arrayContaining([
        { box: 'hashi/web', versions: [], updated: ['description', 'private'], described: ['1.0.0'] },
      ]),
    );
    const web = await boxApi('hashi/web');
    expect(web.json).toMatchObject({
      short_description: 'Our own words',
      description_markdown: '# web\n\nNow with *more*.',
      private: true,
    });
    expect(web.json.versions.find((v: { version: string }) => v.version === '1.0.0').description_markdown).toBe(
      'First release, with notes.',
    );
    const stats = (await admin.get('/api/boxyard/boxes/hashi/web/stats')).json.stats;
    expect(stats.upstream).toMatchObject({
      mirror_id: mirrors[0].id,
      fields: { short_description: 'edited', description: 'upstream', private: 'upstream' },
    });
    expect(stats.versions.map((v: { version: string; upstream: string | null }) => [v.version, v.upstream])).toEqual([
      ['1.1.0', 'upstream'],
      ['1.0.0', 'upstream'],
    ]);
  });

  it('--follow-revocations revokes a mirrored version the upstream revokes; without it the copy keeps it', async () => {
    const following = await mirrorOnce(admin, {
      upstream: { url: hcp.url, token: TOKEN },
      source: 'hashi/web',
      target: 'follow/web',
      follow_revocations: true,
    });
    expect(following.job.state).toBe('done');
    upstreamWeb().versions[1].status = 'revoked';
    const again = await waitForJob(
      admin,
      (await admin.post(`/api/boxyard/mirrors/${following.mirrorId}/run`, {})).json.job.id,
    );
    expect(again.published).toEqual([expect.objectContaining({ box: 'follow/web', revoked: ['1.1.0'] })]);
    expect(
      (await boxApi('follow/web')).json.versions.map((v: { version: string; status: string }) => [v.version, v.status]),
    ).toEqual([
      ['1.1.0', 'revoked'],
      ['1.0.0', 'active'],
    ]);
    const mirrors = (await admin.get('/api/boxyard/mirrors')).json.mirrors;
    const org = mirrors.find((m: { source: string }) => m.source === 'hashi');
    expect(org).toMatchObject({ follow_revocations: false });
    await waitForJob(admin, (await admin.post(`/api/boxyard/mirrors/${org.id}/run`, {})).json.job.id);
    expect(
      (await boxApi('hashi/web')).json.versions.find((v: { version: string }) => v.version === '1.1.0').status,
    ).toBe('active');
  });

  it('--public and --private override what the upstream says', async () => {
    const pub = await mirrorOnce(admin, {
      upstream: { url: hcp.url, token: TOKEN },
      source: 'hashi/secret',
      target: 'open/secret',
      private: false,
    });
    expect(pub.job.state).toBe('done');
    expect((await boxApi('open/secret', d.http)).json.private).toBe(false);
    const priv = await mirrorOnce(admin, {
      upstream: { url: hcp.url, token: TOKEN },
      source: 'hashi/secret',
      target: 'shut/secret',
      private: true,
    });
    expect(priv.job.state).toBe('done');
    expect((await boxApi('shut/secret', d.http)).status).toBe(404);
  });
});
