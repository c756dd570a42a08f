import { useId, useState, type FormEvent } from 'react';
import { planMirror, type NewMirror } from '../../api/mirrors';
import { useSession } from '../../api/session';
import {
  MIRROR_VISIBILITIES,
  type MirrorPlanJson,
  type MirrorVisibility,
} from '../../../../daemon/src/contract/wire/mirror';
import { MIRROR_DEFAULTS } from '../../../../daemon/src/contract/bodies/mirror';
import { numberOrUndefined } from '../format';
import { ErrorNote, useAction } from '../ui';
import { UpstreamTokenField } from '../mirror/upstream-token';

/** HashiCorp's registry: what the URL field starts with (always editable). */
export const HCP_URL = 'https://vagrantcloud.com';

interface Draft {
  url: string;
  token: string;
  org: string;
  target: string;
  visibility: MirrorVisibility;
  followRevocations: boolean;
  parallel: string;
  hours: string;
}
const START: Draft = {
  url: HCP_URL,
  token: '',
  org: '',
  target: '',
  visibility: MIRROR_DEFAULTS.visibility,
  followRevocations: MIRROR_DEFAULTS.follow_revocations,
  parallel: String(MIRROR_DEFAULTS.parallel),
  hours: '',
};

const VISIBILITY_WORDS: Record<MirrorVisibility, string> = {
  upstream: 'As HCP Vagrant says (private stays private)',
  private: 'All private',
  public: 'All public',
};

// An account name (contract/names.ts). Browsers compile `pattern` with the `v` flag, where `-` in a class must be
// escaped.
const ORG_PATTERN = '[A-Za-z0-9][A-Za-z0-9_.\\-]*';

/**
 * The body of the plan and of the mirror: the upstream with its token inline, the whole organization. Parallel
 * downloads left at the default are not sent: the daemon applies its default itself.
 */
function toMirror(d: Draft): NewMirror {
  const hours = numberOrUndefined(d.hours);
  const target = d.target.trim();
  const parallel = Number(d.parallel);
  return {
    upstream: { url: d.url.trim(), token: d.token || undefined },
    source: d.org.trim(),
    target: target || undefined,
    private: d.visibility === 'upstream' ? undefined : d.visibility === 'private',
    follow_revocations: d.followRevocations,
    parallel: parallel === MIRROR_DEFAULTS.parallel ? undefined : parallel,
    interval_minutes: hours === undefined ? undefined : Math.round(hours * 60),
  };
}

export interface Planned {
  plan: MirrorPlanJson;
  mirror: NewMirror;
}

type Setter = (patch: Partial<Draft>) => void;

function VisibilityChoice({ d, set }: { d: Draft; set: Setter }) {
  const id = useId();
  return (
    <fieldset className="choice" aria-labelledby={id}>
      <span id={id} className="choice-label">
        Visibility here
      </span>
      {MIRROR_VISIBILITIES.map((v) => (
        <label key={v} className="check">
          <input
            type="radio"
            name="visibility"
            value={v}
            checked={d.visibility === v}
            onChange={() => set({ visibility: v })}
          />{' '}
          {VISIBILITY_WORDS[v]}
        </label>
      ))}
    </fieldset>
  );
}

/** How the copy runs: revocations, downloads at once, a schedule. */
function RunFields({ d, set }: { d: Draft; set: Setter }) {
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          name="follow_revocations"
          checked={d.followRevocations}
          onChange={(e) => set({ followRevocations: e.target.checked })}
        />{' '}
        Follow revocations (a version revoked on HCP Vagrant is revoked here too)
      </label>
      <div className="row move-numbers">
        <label>
          Parallel downloads
          <input
            name="parallel"
            type="number"
            min={1}
            max={16}
            value={d.parallel}
            onChange={(e) => set({ parallel: e.target.value })}
            required
          />
        </label>
        <label>
          Check again every (hours)
          <input
            name="interval_hours"
            type="number"
            min={1}
            step={1}
            value={d.hours}
            onChange={(e) => set({ hours: e.target.value })}
            placeholder="only once"
          />
        </label>
      </div>
    </>
  );
}

/**
 * Where to copy from and how; "See the plan" asks the daemon what it would fetch (nothing is made).
 * Any change to the form drops the plan shown, so that "Start the copy" always starts what was planned.
 */
export function MoveForm({ onPlan, onEdit }: { onPlan: (p: Planned) => void; onEdit: () => void }) {
  const { api } = useSession();
  const [d, setD] = useState<Draft>(START);
  const plan = useAction((mirror: NewMirror) => planMirror(api, mirror).then((p) => ({ plan: p, mirror })), [], onPlan);
  const set: Setter = (patch) => {
    setD({ ...d, ...patch });
    plan.reset();
    onEdit();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    plan.mutate(toMirror(d));
  };
  return (
    <form className="stack move-form" onSubmit={submit} aria-label="Move from HCP Vagrant">
      <label>
        HCP Vagrant / Vagrant Cloud URL
        <input name="upstream_url" type="url" value={d.url} onChange={(e) => set({ url: e.target.value })} required />
      </label>
      <UpstreamTokenField label="HCP token" value={d.token} onChange={set} aria-describedby="move-token-note" />
      <p id="move-token-note" className="muted small-text field-note">
        Sent only to this Boxyard, which sends it only to the URL above. Needed for private boxes.
      </p>
      <label>
        HCP organization
        <input
          name="organization"
          value={d.org}
          onChange={(e) => set({ org: e.target.value })}
          required
          pattern={ORG_PATTERN}
          title="The organization's name on HCP Vagrant"
          placeholder="your-org"
        />
      </label>
      <label>
        Copy into (optional)
        <input
          name="target"
          value={d.target}
          onChange={(e) => set({ target: e.target.value })}
          pattern={ORG_PATTERN}
          title="A local organization: made if it does not exist"
          placeholder="the same name"
        />
      </label>
      <VisibilityChoice d={d} set={set} />
      <RunFields d={d} set={set} />
      <ErrorNote error={plan.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={plan.isPending}>
          {plan.isPending ? 'Asking HCP Vagrant…' : 'See the plan'}
        </button>
      </div>
    </form>
  );
}
