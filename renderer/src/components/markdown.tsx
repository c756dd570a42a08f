import { useLayoutEffect, useRef } from 'react';
import { marked } from 'marked';
import DOMPurify, { type Config } from 'dompurify';

/**
 * What descriptions may hold once rendered: DOMPurify's HTML profile (no script, no event
 * handlers, no javascript: URLs) minus what the daemon's Content-Security-Policy would refuse
 * and log (inline `style`) and what has no place in a description (forms, frames, media).
 */
const SANITIZE: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'select', 'textarea', 'iframe', 'video', 'audio', 'source'],
  FORBID_ATTR: ['style', 'class', 'id'],
  RETURN_DOM_FRAGMENT: true,
};

/**
 * Images become links to them: the UI's policy allows images from this daemon only (img-src
 * 'self'), so one from elsewhere would be refused; links open in a new tab without handing it
 * this page (`noopener`) or where it came from.
 */
function tidy(fragment: DocumentFragment): DocumentFragment {
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    const src = img.getAttribute('src');
    const link = document.createElement('a');
    link.textContent = img.getAttribute('alt') || 'image';
    if (src) link.setAttribute('href', src);
    img.replaceWith(link);
  }
  for (const a of Array.from(fragment.querySelectorAll('a[href]'))) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  return fragment;
}

/** Markdown (GitHub's flavour) as sanitized DOM nodes. */
export function renderMarkdown(source: string): DocumentFragment {
  const html = marked.parse(source, { async: false, gfm: true });
  return tidy(DOMPurify.sanitize(html, SANITIZE));
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
