import type { Page } from 'playwright-core';

// What the every-page browser test (test/e2e/ui-pages.test.ts) measures on a page as it is shown: each function
// answers its findings in words, none when the page is right.

/** WCAG 2.5.5's size for a tap target, in CSS pixels: the phone pages hold every target to it. */
export const TAP_TARGET_PX = 44;

/**
 * The tap targets on the page lower than TAP_TARGET_PX: every visible button, field, select, disclosure (a details'
 * summary) and link, except a link
 * inside running text (WCAG's "inline" exception). A link is in running text when the block it stands in (its nearest
 * ancestor that is not laid out inline) holds words of its own beside the link's: a link in a sentence, a note, a
 * checklist's line. A link alone in its block (a table cell, a list of links, the top bar, tabs) is a target of its
 * own. A checkbox or radio button is as large as its label, which a tap on it also toggles.
 */
export const smallTargets = (page: Page) =>
  page.evaluate((min) => {
    const inRunningText = (a: Element): boolean => {
      let block = a.parentElement;
      while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
      if (!block) return false;
      const own = (a.textContent ?? '').replace(/\s+/g, '');
      return (block.textContent ?? '').replace(/\s+/g, '').length > own.length;
    };
    const found: string[] = [];
    for (const el of document.querySelectorAll('a[href], button, input, select, textarea, summary')) {
      if (!(el as HTMLElement).checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (el.tagName === 'A' && inRunningText(el)) continue;
      const toggle = el.matches('input[type=checkbox], input[type=radio]');
      const label = toggle ? el.closest('label') : null;
      const height = (label ?? el).getBoundingClientRect().height;
      if (Math.round(height) < min) {
        const words = el.getAttribute('aria-label') ?? (label ?? el).textContent ?? '';
        const name = (words.trim() || el.getAttribute('name')) ?? '';
        found.push(
          `${el.tagName.toLowerCase()}${toggle ? ` ${(el as HTMLInputElement).type}` : ''} "${name.slice(0, 40)}" is ${Math.round(height)} px high`,
        );
      }
    }
    return found;
  }, TAP_TARGET_PX);

/** How far the page is wider than the window, in CSS pixels (0 when it fits). */
export const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/**
 * On a phone every table is a list of cards (renderer/src/components/card-table.tsx): its header row visually hidden
 * (a box of 1 px at most) and its rows laid out as blocks. No visible cell of a table (td or th, outside the hidden
 * header) reaches past the window's right edge or past the inside edge of any ancestor that scrolls or clips
 * (`overflow-x` other than `visible`: the table itself on a phone, a wrapper), and nothing in such an ancestor is wider
 * than it, so it scrolls: a column scrolled out of sight inside its own box leaves the page's width as it was, which
 * the page-wide check of the width cannot see.
 */
export const tableProblems = (page: Page) =>
  page.evaluate(() => {
    const found: string[] = [];
    const describe = (el: Element) =>
      `<${el.tagName.toLowerCase()}${el.className ? ` class="${String(el.className)}"` : ''}>`;
    const clipping = (el: Element): Element[] => {
      const all: Element[] = [];
      for (let a: Element | null = el; a && a !== document.documentElement; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') all.push(a);
      return all;
    };
    const tables = [...document.querySelectorAll('table')].filter((t) => t.checkVisibility());
    tables.forEach((table, i) => {
      const name = `table "${table.getAttribute('aria-label') ?? table.caption?.textContent ?? `number ${i + 1}`}"`;
      const head = table.tHead?.getBoundingClientRect();
      if (head && (head.width > 1 || head.height > 1))
        found.push(`${name} shows its header row (${Math.round(head.width)}×${Math.round(head.height)} px), not cards`);
      if (getComputedStyle(table.tBodies[0] ?? table).display !== 'block')
        found.push(`${name} is not laid out as cards`);
      const cells = [...table.querySelectorAll('td, th')].filter(
        (c) => !table.tHead?.contains(c) && c.checkVisibility({ visibilityProperty: true }),
      );
      for (const cell of cells) {
        const right = cell.getBoundingClientRect().right;
        const what = `${name}'s cell "${(cell.textContent ?? '').trim().slice(0, 30)}"`;
        if (right > window.innerWidth + 0.5)
          found.push(`${what} ends ${Math.round(right - window.innerWidth)} px past the window`);
        for (const a of clipping(cell.parentElement ?? cell)) {
          const edge = a.getBoundingClientRect().left + a.clientLeft + a.clientWidth;
          if (right > edge + 0.5) found.push(`${what} ends ${Math.round(right - edge)} px past ${describe(a)}`);
        }
      }
      for (const a of new Set(cells.flatMap(clipping)))
        if (a.scrollWidth > a.clientWidth + 1)
          found.push(`${name}: ${describe(a)} scrolls sideways (${a.scrollWidth} px in ${a.clientWidth} px)`);
    });
    return found;
  });
