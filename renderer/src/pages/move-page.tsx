import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { MoveForm, type Planned } from '../components/move/move-form';
import { MovePlan } from '../components/move/move-plan';
import { MoveJob } from '../components/move/move-job';
import { OfflineNote } from '../components/mirror/offline-settings';
import { Section } from '../components/ui';
import '../components/move/move.css';

/**
 * Moving off HCP Vagrant in one flow: where from (URL, token, organization) and how, the plan
 * (`POST /mirror-plans`: what would be fetched, what is skipped, whether it fits), the copy (a
 * mirror run at once, its job followed with `?job=ID` in the address), and the lines for users.
 */
export function MovePage() {
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job');
  const [planned, setPlanned] = useState<Planned | null>(null);
  /** Counts plans, so that each new one gets a fresh "Start the copy". */
  const [plans, setPlans] = useState(0);
  /** The plan the running copy was started from (its boxes' visibility picks the lines for users). */
  const [started, setStarted] = useState<Planned | null>(null);
  return (
    <>
      <div className="page-head">
        <h1>Move from HCP Vagrant</h1>
        <Link className="button" to="/mirrors">
          All mirrors
        </Link>
      </div>
      <p className="lead">
        Copy every box of an HCP Vagrant organization here, with its versions, providers, architectures, descriptions
        and visibility, and keep it current if you like. See the plan first: nothing is made until you start the copy.
      </p>
      <OfflineNote />
      <Section title="From HCP Vagrant">
        <MoveForm
          onPlan={(p) => {
            setPlanned(p);
            setPlans(plans + 1);
          }}
          onEdit={() => setPlanned(null)}
        />
      </Section>
      {planned && (
        <MovePlan
          key={plans}
          planned={planned}
          onStarted={(job) => {
            setStarted(planned);
            setParams({ job: job.id });
          }}
        />
      )}
      {jobId && <MoveJob key={jobId} jobId={jobId} planned={started} />}
    </>
  );
}
