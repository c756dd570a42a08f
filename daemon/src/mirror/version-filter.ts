import { ValidationError } from '../lib/errors';
import { isGemVersion } from '../contract/names';
import { compareGemVersions } from '../registry/versions/gem-version';

type Op = '=' | '!=' | '>' | '<' | '>=' | '<=' | '~>';
interface Requirement {
  op: Op;
  version: string;
}

/**
 * Vagrant's box version constraints (`config.vm.box_version`, `vagrant box add --box-version`):
 * Ruby Gem requirements separated by commas, e.g. `>= 1.0, < 2.0` or `~> 1.2`.
 */
export function parseConstraint(text: string): Requirement[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0)
    throw new ValidationError('versions must be a constraint such as ">= 1.0, < 2.0" or "~> 1.2".');
  return parts.map((part) => {
    const m = /^(=|!=|>=|<=|>|<|~>)?\s*(\S+)$/.exec(part);
    if (!m || !isGemVersion(m[2])) {
      throw new ValidationError(
        `versions: "${part}" is not a version requirement; use e.g. ">= 1.0, < 2.0" or "~> 1.2".`,
      );
    }
    return { op: (m[1] ?? '=') as Op, version: m[2] };
  });
}

/** `~> 1.2.3` means `>= 1.2.3, < 1.3`: the last release segment is dropped and the one before bumped. */
function pessimisticUpper(version: string): string {
  const release = version
    .split('-')[0]
    .split('.')
    .filter((s) => /^\d+$/.test(s));
  if (release.length > 1) release.pop();
  release[release.length - 1] = String(Number(release[release.length - 1]) + 1);
  return release.join('.');
}

function satisfies(version: string, r: Requirement): boolean {
  const c = compareGemVersions(version, r.version);
  switch (r.op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    case '~>':
      return c >= 0 && compareGemVersions(version, pessimisticUpper(r.version)) < 0;
  }
}

export const matchesConstraint = (version: string, reqs: Requirement[]): boolean =>
  reqs.every((r) => satisfies(version, r));

export interface VersionSelection {
  /** A constraint such as `>= 1.0, < 2.0`. */
  versions?: string | null;
  /** Only the newest N (after the constraint). */
  latest?: number | null;
}

/** The versions a mirror or an export takes, newest first. */
export function selectVersions(versions: string[], opts: VersionSelection): string[] {
  const reqs = opts.versions ? parseConstraint(opts.versions) : [];
  const picked = versions.filter((v) => matchesConstraint(v, reqs)).sort((a, b) => compareGemVersions(b, a));
  return opts.latest ? picked.slice(0, opts.latest) : picked;
}
