import { describe, expect, it } from 'vitest';
import { pageTitle } from '../../renderer/src/page-titles';

// Each page's title in the browser's tab: the page, then Boxyard; a box or an organization by its name.
describe('page titles', () => {
  it('names each page by its route, the most specific first', () => {
    expect(pageTitle('/boxes')).toBe('Boxes · Boxyard');
    expect(pageTitle('/boxes/new')).toBe('New box · Boxyard');
    expect(pageTitle('/boxes/add')).toBe('Add a box file · Boxyard');
    expect(pageTitle('/boxes/acme/web')).toBe('acme/web · Boxyard');
    expect(pageTitle('/mirrors/move')).toBe('Move from HCP Vagrant · Boxyard');
    expect(pageTitle('/agent-pools')).toBe('Agent pools · Boxyard');
    expect(pageTitle('/agent-pools/lab')).toBe('Agent pools · Boxyard');
    expect(pageTitle('/agent-pools/lab/apool-1')).toBe('Agent pool · Boxyard');
    expect(pageTitle('/organizations/lab')).toBe('lab · Organizations · Boxyard');
    expect(pageTitle('/settings')).toBe('Your account · Boxyard');
    expect(pageTitle('/settings/administration')).toBe('Administration · Boxyard');
    expect(pageTitle('/login')).toBe('Sign in · Boxyard');
    expect(pageTitle('/nowhere')).toBe('Boxyard');
  });
});
