import { Link } from 'react-router-dom';
import type { OverviewJson } from '../../../daemon/src/contract/wire/overview';
import { gettingStartedSteps } from './getting-started-steps';
import { Section } from './ui';

/**
 * The overview's checklist for a new server. It goes away once every step is done rather than being dismissed: each
 * tick comes from the daemon's state, so it is the same in every browser and needs nothing stored to hide it.
 */
export function GettingStarted({ o }: { o: OverviewJson }) {
  const steps = gettingStartedSteps(o);
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return null;
  return (
    <Section title="Getting started">
      <p className="muted">
        {done} of {steps.length} steps done. Each ticks itself when it is done, here or through the API.
      </p>
      <ol className="checklist" aria-label="Getting started">
        {steps.map((s) => (
          <li key={s.key} className={s.done ? 'done' : undefined}>
            <span className={s.done ? 'badge badge-done' : 'badge'}>{s.done ? 'done' : 'to do'}</span>
            <span>
              <Link to={s.to}>{s.todo}</Link>
              <span className="muted"> — {s.why}</span>
            </span>
          </li>
        ))}
      </ol>
    </Section>
  );
}
