import { createHash } from 'node:crypto';
import type { HcpBox, HcpProvider, HcpVersion } from './hcp-upstream';
import { sha256 } from './mirror';

/**
 * The JSON HCP Vagrant (Vagrant Cloud) answers for a fake's boxes, as vagrant and the vagrant_cloud
 * gem read it: the box API (v1/v2), a namespace's box list and the catalog vagrant fetches with
 * `Accept: application/json`. test/helpers/hcp-upstream.ts serves it.
 */

/** Where links point, and when the fake started (every timestamp). */
export interface HcpLinks {
  url: string;
  api: 'v1' | 'v2';
  at: string;
}

const digests = new WeakMap<Buffer, Map<string, string>>();

/** The hex digest of `file` (sha256 by default), computed once per Buffer and type. */
export function digest(file: Buffer, type: HcpProvider['checksum_type'] = 'sha256'): string {
  let byType = digests.get(file);
  if (!byType) {
    byType = new Map();
    digests.set(file, byType);
  }
  let hex = byType.get(type);
  if (hex === undefined) {
    hex = type === 'sha256' ? sha256(file) : createHash(type).update(file).digest('hex');
    byType.set(type, hex);
  }
  return hex;
}

/** Escaped markdown in paragraphs: enough of a rendering to tell the two fields apart. */
export function descriptionHtml(markdown: string): string {
  if (!markdown.trim()) return '';
  const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return markdown
    .trim()
    .split(/\n\s*\n/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** Numeric where both parts are numbers (1.10.0 > 1.9.0), else by text. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The versions a caller sees, newest first: anonymous callers only released ones. */
export function visibleVersions(box: HcpBox, authed: boolean): HcpVersion[] {
  return box.versions
    .filter((v) => authed || v.status === 'active')
    .sort((a, b) => compareVersions(b.version, a.version));
}

const seg = encodeURIComponent;

export function downloadUrl(url: string, box: HcpBox, v: HcpVersion, p: HcpProvider): string {
  return `${url}/${seg(box.org)}/boxes/${seg(box.name)}/versions/${seg(v.version)}/providers/${seg(p.name)}/${seg(p.architecture)}/vagrant.box`;
}

function providerJson(box: HcpBox, v: HcpVersion, p: HcpProvider, l: HcpLinks) {
  const type = p.checksum_type ?? 'sha256';
  return {
    name: p.name,
    hosted: true,
    hosted_token: null,
    original_url: null,
    created_at: l.at,
    updated_at: l.at,
    download_url: downloadUrl(l.url, box, v, p),
    checksum: digest(p.file, type),
    checksum_type: type,
    architecture: p.architecture,
    default_architecture: p.default_architecture ?? false,
  };
}

function versionJson(box: HcpBox, v: HcpVersion, l: HcpLinks) {
  const at = `${l.url}/api/${l.api}/box/${seg(box.org)}/${seg(box.name)}/version/${seg(v.version)}`;
  return {
    version: v.version,
    number: v.version,
    status: v.status,
    description_html: descriptionHtml(v.description),
    description_markdown: v.description,
    created_at: l.at,
    updated_at: l.at,
    release_url: `${at}/release`,
    revoke_url: `${at}/revoke`,
    providers: v.providers.map((p) => providerJson(box, v, p, l)),
  };
}

/** A box as a namespace lists it: no `versions` key. */
export function boxSummaryJson(box: HcpBox, l: HcpLinks) {
  const current = visibleVersions(box, false)[0];
  return {
    created_at: l.at,
    updated_at: l.at,
    tag: `${box.org}/${box.name}`,
    name: box.name,
    short_description: box.short_description,
    description_html: descriptionHtml(box.description),
    description_markdown: box.description,
    username: box.org,
    private: box.private,
    downloads: 0,
    current_version: current ? versionJson(box, current, l) : null,
  };
}

/** `GET /api/v{1,2}/box/:org/:box`: every version the caller may see, newest first. */
export function boxJson(box: HcpBox, authed: boolean, l: HcpLinks) {
  return { ...boxSummaryJson(box, l), versions: visibleVersions(box, authed).map((v) => versionJson(box, v, l)) };
}

/** `GET /:org/:box` with `Accept: application/json`: released versions only, whoever asks. */
export function catalogJson(box: HcpBox, url: string) {
  return {
    name: `${box.org}/${box.name}`,
    description: box.short_description,
    versions: visibleVersions(box, false).map((v) => ({
      version: v.version,
      status: v.status,
      description_html: descriptionHtml(v.description),
      description_markdown: v.description,
      providers: v.providers.map((p) => ({
        name: p.name,
        url: downloadUrl(url, box, v, p),
        checksum: digest(p.file, p.checksum_type ?? 'sha256'),
        checksum_type: p.checksum_type ?? 'sha256',
        architecture: p.architecture,
        default_architecture: p.default_architecture ?? false,
      })),
    })),
  };
}

/**
 * A maintainer's organization as the mirroring tests copy it: `web` (public), `secret` (private)
 * and `hidden` (listed, but the token may not see it), each with 1.0.0 (amd64), 1.1.0 (amd64 and
 * arm64 with a sha512 checksum) and a revoked 0.9.0, with Markdown descriptions and release notes.
 */
export function hcpOrganization(files: { amd: Buffer; arm: Buffer }, org = 'hashi'): HcpBox[] {
  const box = (name: string, extra: Partial<HcpBox> = {}): HcpBox => ({
    org,
    name,
    private: false,
    short_description: `${name}: a base box`,
    description: `# ${name}\n\nBuilt with *Packer*.\n\n- item`,
    versions: [
      {
        version: '1.0.0',
        status: 'active',
        description: 'First **release**.',
        providers: [{ name: 'virtualbox', architecture: 'amd64', default_architecture: true, file: files.amd }],
      },
      {
        version: '1.1.0',
        status: 'active',
        description: 'Adds arm64.',
        providers: [
          { name: 'virtualbox', architecture: 'amd64', default_architecture: true, file: files.amd },
          {
            name: 'virtualbox',
            architecture: 'arm64',
            default_architecture: false,
            file: files.arm,
            checksum_type: 'sha512',
          },
        ],
      },
      {
        version: '0.9.0',
        status: 'revoked',
        description: 'Broken.',
        providers: [{ name: 'virtualbox', architecture: 'amd64', file: files.amd }],
      },
    ],
    ...extra,
  });
  return [box('web'), box('secret', { private: true }), box('hidden', { hiddenFromToken: true })];
}
