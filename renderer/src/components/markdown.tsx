import { useLayoutEffect, useRef } from 'react';
import { Marked, type Tokens } from 'marked';
import DOMPurify, { type Config } from 'dompurify';

const escapeHtml = (t: string): string => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Markdown only: HTML written into a description shows as the text it is, never as markup.
 * DOMPurify would remove its scripts and handlers, but only after Chromium has parsed them, and
 * parsing an `onerror` attribute, even in DOMPurify's inert document, is reported as a breach of
 * the daemon's Content-Security-Policy (script-src-attr). Images become links to them: the UI's
 * policy allows images from this daemon only (img-src 'self'), so one from elsewhere is refused.
 */
const RENDERER = {
  html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
  image: ({ href, text }: Tokens.Image) => `<a href="${escapeHtml(href)}">${escapeHtml(text || 'image')}</a>`,
  /**
   * A description sits in a card under the page's title (h1) and the card's (h2): its `# Heading` is an h3, and the
   * rest follow, so nothing in it outranks the page.
   */
  heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, t: Tokens.Heading) {
    const level = Math.min(t.depth + 2, 6);
    return `<h${level}>${this.parser.parseInline(t.tokens)}</h${level}>\n`;
  },
};

/**
 * What may reach the page of marked's output: DOMPurify's HTML profile (no script, no event
 * handlers, no javascript: URLs) minus what the CSP would refuse and log (inline `style`) and
 * what has no place in a description (forms, frames, media).
 */
const SANITIZE: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'select', 'textarea', 'iframe', 'video', 'audio', 'source'],
  FORBID_ATTR: ['style', 'class', 'id'],
  RETURN_DOM_FRAGMENT: true,
};

/** Markdown (GitHub's flavour) as sanitized DOM nodes; links open in a new tab without handing it this page. */
export function renderMarkdown(source: string): DocumentFragment {
  const html = new Marked({ gfm: true, renderer: RENDERER }).parse(source, { async: false });
  const fragment = DOMPurify.sanitize(html, SANITIZE);
  for (const a of Array.from(fragment.querySelectorAll('a[href]'))) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  return fragment;
}

/**
 * A box's or version's description. The sanitized nodes are put in place by hand rather than
 * through dangerouslySetInnerHTML: what reaches the page is exactly what DOMPurify answered,
 * never re-parsed from a string.
 */
export function Markdown({ source }: { source: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(renderMarkdown(source));
  }, [source]);
  if (!source.trim()) return null;
  return <div ref={ref} className="markdown" />;
}
