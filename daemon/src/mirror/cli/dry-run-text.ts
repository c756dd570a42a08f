/** A dry run's plan (plans/dry-run.ts) as `boxyard mirror` prints it, and why it cannot start. */
import { TOKEN_CHECK_WORDS, type MirrorPlanJson } from '../../contract/wire/mirror';
import { formatBytes } from './meter';

/** A plan as `boxyard mirror` prints it before the copy (and alone with --dry-run). */
export function renderPlan(plan: MirrorPlanJson): string {
  const lines = [`plan: ${plan.upstream.url} ${plan.source} → ${plan.target}`];
  if (plan.upstream.token_check) lines.push(`token check: ${TOKEN_CHECK_WORDS[plan.upstream.token_check]}`);
  for (const b of plan.boxes) {
    const what = b.versions.length ? b.versions.map((v) => v.version).join(', ') : 'nothing new';
    lines.push(
      `  ${b.target}${b.exists ? '' : ' (new)'}${b.private ? ' private' : ' public'}: ${what} (${b.files} files, ${formatBytes(b.bytes)})`,
    );
  }
  for (const s of plan.skipped) lines.push(`  skipped ${s.box}: ${s.reason}`);
  const t = plan.totals;
  const unknown = t.unknown_sizes ? ` (+${t.unknown_sizes} files of unknown size)` : '';
  lines.push(`total: ${t.boxes} boxes, ${t.versions} versions, ${t.files} files, ${formatBytes(t.bytes)}${unknown}`);
  const s = plan.storage;
  if (s.free_bytes === null) {
    lines.push(`to fetch: ${formatBytes(s.needed_bytes)} (into the bucket: no disk to check)`);
  } else {
    lines.push(
      `to fetch: ${formatBytes(s.needed_bytes)}; free now ${formatBytes(s.free_bytes)}, after ${formatBytes(Math.max(0, s.free_after_bytes ?? 0))}` +
        ` (reserve ${formatBytes(s.reserve_bytes ?? 0)}): ${s.fits ? 'fits' : 'DOES NOT FIT'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Why a plan cannot start, or null. */
export function planRefusal(plan: MirrorPlanJson): string | null {
  const s = plan.storage;
  if (s.fits) return null;
  return (
    `not enough free disk space: the copy needs ${formatBytes(s.needed_bytes)}, the daemon's disk has ${formatBytes(s.free_bytes ?? 0)} free` +
    ` and keeps ${formatBytes(s.reserve_bytes ?? 0)} in reserve (insufficient_storage). Free space, or copy fewer versions (--latest, --versions).`
  );
}
