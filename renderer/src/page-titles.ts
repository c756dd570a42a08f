import { matchPath } from 'react-router-dom';

/**
 * Each page's title in the browser's tab and history (`X · Boxyard`), by its route: one list beside the routes of
 * app.tsx, first match wins. A box's or an organization's page is titled with its name.
 */
const TITLES: Array<[pattern: string, title: (params: Record<string, string | undefined>) => string]> = [
  ['/login', () => 'Sign in'],
  ['/overview', () => 'Overview'],
  ['/boxes/new', () => 'New box'],
  ['/boxes/add', () => 'Add a box file'],
  ['/boxes/:user/:name', (p) => `${p.user}/${p.name}`],
  ['/boxes', () => 'Boxes'],
  ['/mirrors/move', () => 'Move from HCP Vagrant'],
  ['/mirrors', () => 'Mirrors'],
  ['/agent-pools/:org/:poolId', () => 'Agent pool'],
  ['/agent-pools/*', () => 'Agent pools'],
  ['/organizations/:name', (p) => `${p.name} · Organizations`],
  ['/organizations', () => 'Organizations'],
  ['/settings/administration', () => 'Administration'],
  ['/settings', () => 'Your account'],
];

export function pageTitle(pathname: string): string {
  for (const [pattern, title] of TITLES) {
    const m = matchPath(pattern, pathname);
    if (m) return `${title(m.params)} · Boxyard`;
  }
  return 'Boxyard';
}
