import { useState, type FormEvent } from 'react';
import { updateMirror } from '../../api/mirrors';
import type { MirrorJson } from '../../../../daemon/src/contract/wire/mirror';
import { useSession } from '../../api/session';
import { numberOrUndefined } from '../format';
import { ErrorNote, formatTime, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';

/** "every 360 min, next …" or "runs when asked". */
export function scheduleText(m: MirrorJson): string {
  if (!m.interval_minutes) return 'runs when asked';
  return `every ${m.interval_minutes} min${m.next_run_at ? `, next ${formatTime(m.next_run_at)}` : ''}`;
}

/** The mirror's schedule (its `interval_minutes`), changed in place: empty runs it only when asked. */
export function MirrorSchedule({ m }: { m: MirrorJson }) {
  const { api } = useSession();
  const [editing, setEditing] = useState(false);
  const [every, setEvery] = useState(m.interval_minutes ? String(m.interval_minutes) : '');
  const save = useAction(
    (interval: number | null) => updateMirror(api, m.id, { interval_minutes: interval }),
    [queryKeys.mirrors],
    () => setEditing(false),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(numberOrUndefined(every) ?? null);
  };
  if (!editing) {
    return (
      <span>
        {scheduleText(m)}{' '}
        <button
          type="button"
          className="link"
          aria-label={`Change the schedule of ${m.source}`}
          onClick={() => {
            setEvery(m.interval_minutes ? String(m.interval_minutes) : '');
            setEditing(true);
          }}
        >
          change
        </button>
      </span>
    );
  }
  return (
    <form className="row" onSubmit={submit} aria-label={`Schedule of ${m.source}`}>
      <label>
        Every (minutes)
        <input
          name="interval_minutes"
          type="number"
          min={1}
          value={every}
          onChange={(e) => setEvery(e.target.value)}
          placeholder="only when run"
        />
      </label>
      <button type="submit" className="small" disabled={save.isPending}>
        Save schedule
      </button>
      <button type="button" className="link" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorNote error={save.error} />
    </form>
  );
}
