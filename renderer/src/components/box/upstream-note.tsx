import type { BoxStatsAnswer } from '../../../../daemon/src/contract/wire/box-stats';
import { When } from '../relative-time';

type Follows = NonNullable<BoxStatsAnswer['stats']['upstream']>;
type Source = Follows['fields'][keyof Follows['fields']];

/** A box field a mirror takes from its upstream, in words (also what a job's `updated` lists). */
export const fieldWords = (field: string): string =>
  (
    ({ short_description: 'short description', description: 'description', private: 'visibility' }) as Record<
      string,
      string
    >
  )[field] ?? field.replace(/_/g, ' ');

/** Why an edited field stays: the tooltips of "edited here". */
const EDITED_HERE = 'Changed here: later runs of the mirror leave it as it is.';
export const NOTES_EDITED_HERE =
  "This version's notes were changed here: later runs of the mirror leave them as they are.";
const FROM_UPSTREAM = 'As the upstream last said: the next run of the mirror takes its changes.';

function Field({ field, source }: { field: string; source: Source }) {
  const edited = source === 'edited';
  return (
    <span className={edited ? 'edited' : undefined} title={edited ? EDITED_HERE : FROM_UPSTREAM}>
      {fieldWords(field)} {edited ? 'edited here' : 'from upstream'}
    </span>
  );
}

/**
 * For a box a mirror follows: when it last synced, and which of its fields are still as the
 * upstream says and which were edited here (those a later run leaves alone).
 */
export function UpstreamNote({ upstream }: { upstream: Follows | null | undefined }) {
  if (!upstream) return null;
  const fields = Object.entries(upstream.fields) as Array<[string, Source]>;
  return (
    <div className="upstream-note" role="note" aria-label="Mirrored box">
      <p>
        Follows its upstream (synced <When iso={upstream.synced_at} />
        ):{' '}
        {fields.map(([field, source], i) => (
          <span key={field}>
            {i > 0 && ' · '}
            <Field field={field} source={source} />
          </span>
        ))}
      </p>
      <p className="muted small-text">
        Each run of the mirror takes what changed upstream, except what was edited here: a field or version notes
        changed here stay as written.
      </p>
    </div>
  );
}
