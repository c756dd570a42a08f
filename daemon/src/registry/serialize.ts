import { currentVersion, type BoxDetail, type BoxSummary, type VersionDetail } from './details';
import type { BoxRecord, ProviderRow, VersionRow } from './repository';
import { advertisedChecksum } from './providers/checksums';
import { BOX, ROOT, type BoxApiVersion } from '../http/route-table';
import type { Urls } from '../http/urls';

/** How links are built: the daemon's URLs, and the API version the request used. */
export interface Links {
  urls: Urls;
  api: BoxApiVersion;
}

/** Escaped text in paragraphs: safe to put in a page, without pulling in a Markdown renderer. */
export function descriptionHtml(markdown: string): string {
  if (!markdown.trim()) return '';
  const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return markdown
    .trim()
    .split(/\n\s*\n/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** Where vagrant downloads the image: the external URL, or the familiar hosted layout. */
export function downloadUrl(box: BoxRecord, version: VersionRow, p: ProviderRow, urls: Urls): string {
  if (p.url) return p.url;
  return urls.to('root', ROOT.download, {
    username: box.username,
    box: box.name,
    version: version.version,
    provider: p.name,
    arch: p.architecture,
  });
}

export function providerJson(box: BoxRecord, version: VersionRow, p: ProviderRow, links: Links) {
  const sum = advertisedChecksum(p);
  return {
    name: p.name,
    architecture: p.architecture,
    default_architecture: p.default_architecture === 1,
    hosted: p.url === null,
    hosted_token: null,
    original_url: p.url,
    url: p.url,
    download_url: downloadUrl(box, version, p, links.urls),
    checksum: sum?.checksum ?? null,
    checksum_type: sum?.checksum_type ?? null,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

export function versionJson(box: BoxRecord, v: VersionDetail, links: Links) {
  const at = { username: box.username, name: box.name, version: v.version.version };
  return {
    version: v.version.version,
    number: v.version.version,
    status: v.version.status,
    description: v.version.description,
    description_html: descriptionHtml(v.version.description),
    description_markdown: v.version.description,
    created_at: v.version.created_at,
    updated_at: v.version.updated_at,
    release_url: links.urls.to(links.api, BOX.release, at),
    revoke_url: links.urls.to(links.api, BOX.revoke, at),
    providers: v.providers.map((p) => providerJson(box, v.version, p, links)),
  };
}

/**
 * A box with exactly the keys vagrant_cloud 3.0.5 accepts in search hits (it raises on any
 * other). `GET /user` entries must not carry `versions`, or the CLI prints every version twice.
 */
export function boxSummaryJson(s: BoxSummary, links: Links) {
  const { box, current } = s;
  return {
    name: box.name,
    username: box.username,
    tag: `${box.username}/${box.name}`,
    private: box.private === 1,
    downloads: box.downloads,
    created_at: box.created_at,
    updated_at: box.updated_at,
    short_description: box.short_description,
    description: box.description,
    description_html: descriptionHtml(box.description),
    description_markdown: box.description,
    current_version: current ? versionJson(box, current, links) : null,
  };
}

/** A box with every version, as `GET /box` and the box changes answer. */
export function boxJson(d: BoxDetail, links: Links) {
  return {
    ...boxSummaryJson({ box: d.box, current: currentVersion(d) }, links),
    versions: d.versions.map((v) => versionJson(d.box, v, links)),
  };
}
