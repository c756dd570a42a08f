import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Lexer, walkTokens, type Token } from 'marked';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Every relative link in the documentation (the Markdown at the repository's root and in docs/)
 * names a file that exists, and every `#anchor` names a heading of the page it points at, as
 * GitHub makes heading anchors. A moved section or a renamed heading fails here, not on a reader.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The pages checked: README.md, SECURITY.md and the like at the root, and everything in docs/. */
function documentation(root: string): string[] {
  const md = (dir: string) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(dir, f));
  return [...md('.'), ...md('docs')].map((f) => relative(root, join(root, f))).sort();
}

/**
 * GitHub's heading anchor (github-slugger): lowercase; drop every character but letters, marks,
 * digits, `_`, `-` and spaces; each space becomes `-` (two spaces, two hyphens). The second
 * heading with a slug gets `-1`, the third `-2`, and so on.
 */
function slugger(): (heading: string) => string {
  const seen = new Map<string, number>();
  return (heading) => {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    let slug = base;
    while (seen.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    seen.set(slug, 0);
    return slug;
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: '\u00a0' };

/** A heading's text as GitHub renders it: code spans keep their text, markup and HTML tags go. */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((t): string => {
      if (t.type === 'html') return '';
      if (t.type === 'image' || t.type === 'br') return '';
      if ('tokens' in t && t.tokens) return plainText(t.tokens);
      return 'text' in t ? String(t.text).replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e]) : '';
    })
    .join('');
}

interface Page {
  anchors: Set<string>;
  links: Array<{ href: string; line: number }>;
}

function readPage(file: string): Page {
  const src = readFileSync(file, 'utf8');
  const tokens = new Lexer({ gfm: true }).lex(src);
  const slug = slugger();
  const anchors = new Set<string>();
  const links: Page['links'] = [];
  let from = 0;
  const lineOf = (raw: string) => {
    const at = src.indexOf(raw, from);
    if (at >= 0) from = at;
    return src.slice(0, Math.max(at, 0)).split('\n').length;
  };
  walkTokens(tokens, (t) => {
    if (t.type === 'heading') anchors.add(slug(plainText(t.tokens)));
    else if (t.type === 'link' || t.type === 'image') links.push({ href: t.href, line: lineOf(t.raw) });
    else if (t.type === 'html') {
      for (const m of t.raw.matchAll(/\b(?:id|name)\s*=\s*"([^"]+)"/g)) anchors.add(m[1]);
      for (const m of t.raw.matchAll(/\bhref\s*=\s*"([^"]+)"/g)) links.push({ href: m[1], line: lineOf(t.raw) });
    }
  });
  return { anchors, links };
}

/** What is wrong with each relative link of `file` (relative to `root`), as `file:line: href: why`. */
function brokenLinks(root: string, file: string): string[] {
  const pages = new Map<string, Page>();
  const page = (path: string): Page => {
    let read = pages.get(path);
    if (!read) {
      read = readPage(path);
      pages.set(path, read);
    }
    return read;
  };
  const source = join(root, file);
  const broken: string[] = [];
  for (const { href, line } of page(source).links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // https:, mailto:, …
    const hash = href.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(href.slice(hash + 1));
    const target = path === '' ? source : resolve(dirname(source), path);
    const why = ((): string | null => {
      if (target !== root && !target.startsWith(root + sep)) return 'points outside the repository';
      if (!existsSync(target)) return `no such file: ${relative(root, target)}`;
      if (anchor === null) return null;
      if (!target.endsWith('.md') || statSync(target).isDirectory()) {
        return /^L\d+(-L\d+)?$/.test(anchor) ? null : `#${anchor}: only a Markdown page has headings`;
      }
      return page(target).anchors.has(anchor) ? null : `#${anchor}: no such heading in ${relative(root, target)}`;
    })();
    if (why) broken.push(`${file}:${line}: ${href}: ${why}`);
  }
  return broken;
}

describe('GitHub heading anchors', () => {
  it('slug a heading as GitHub does', () => {
    const slug = slugger();
    expect(slug('Scale out: PostgreSQL, S3 and several daemons')).toBe('scale-out-postgresql-s3-and-several-daemons');
    expect(slug('Sign-in, passwords and two-factor')).toBe('sign-in-passwords-and-two-factor');
    expect(slug("The daemon's own CA")).toBe('the-daemons-own-ca');
    expect(slug('Mirroring API (under /api/boxyard, token required)')).toBe(
      'mirroring-api-under-apiboxyard-token-required',
    );
    expect(slug('snake_case and  two spaces')).toBe('snake_case-and--two-spaces');
    expect(slug('Café — déjà vu, 2 × 3 = 6!')).toBe('café--déjà-vu-2--3--6');
  });

  it('number repeated headings -1, -2, as GitHub does', () => {
    const slug = slugger();
    expect(['Settings', 'Settings', 'Settings', 'Settings-1'].map(slug)).toEqual([
      'settings',
      'settings-1',
      'settings-2',
      'settings-1-1',
    ]);
  });

  it('take the heading as rendered: code spans keep their text, links their label, markup goes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boxyard-docs-'));
    try {
      writeFileSync(
        join(dir, 'a.md'),
        '# The `boxyard` command\n\n## **Bold** and [a link](a.md) <em>here</em>\n\n```sh\n# not a heading\n```\n',
      );
      expect([...readPage(join(dir, 'a.md')).anchors]).toEqual(['the-boxyard-command', 'bold-and-a-link-here']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('documentation links', () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a missing file, a missing anchor and a link out of the repository', () => {
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'b.md'), '# B\n\n## Two words\n');
    writeFileSync(
      join(dir, 'README.md'),
      [
        '# Top',
        '',
        '[ok](docs/b.md) [ok](docs/b.md#two-words) [ok](#top) [ok](docs/) [ok](https://example.org/x.md#nope)',
        '',
        '[gone](docs/c.md) [bad anchor](docs/b.md#three-words) [bad here](#bottom)',
        '',
        '| a | b |',
        '|---|---|',
        '| [in a table](docs/b.md#Two-Words) | x |',
        '',
        '[out](../elsewhere.md)',
        '',
      ].join('\n'),
    );
    expect(brokenLinks(dir, 'README.md')).toEqual([
      'README.md:5: docs/c.md: no such file: docs/c.md',
      'README.md:5: docs/b.md#three-words: #three-words: no such heading in docs/b.md',
      'README.md:5: #bottom: #bottom: no such heading in README.md',
      'README.md:9: docs/b.md#Two-Words: #Two-Words: no such heading in docs/b.md',
      'README.md:11: ../elsewhere.md: points outside the repository',
    ]);
  });

  it.each(documentation(ROOT))('every relative link and anchor in %s resolves', (file) => {
    expect(brokenLinks(ROOT, file)).toEqual([]);
  });
});
