/** The sign-in page, coming back to `here` (a router location) once signed in. */
export const signInPath = (here: { pathname: string; search: string }): string =>
  `/login?${new URLSearchParams({ next: here.pathname + here.search })}`;

/**
 * A browser that opened a box's catalog URL (`/ORG/BOX`, which the daemon answers a browser with
 * this page) is shown the box page: the address becomes the UI's own (`/ui/boxes/ORG/BOX`) before
 * the router, which lives under /ui, reads it. Any other path outside /ui is left alone.
 */
export function enterAtBoxPath(loc: Location, history: History): void {
  const m = /^\/([^/]+)\/([^/]+)\/?$/.exec(loc.pathname);
  if (!m || m[1].toLowerCase() === 'ui') return;
  history.replaceState(history.state, '', `/ui/boxes/${m[1]}/${m[2]}${loc.search}${loc.hash}`);
}
