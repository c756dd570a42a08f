import type { ReactNode } from 'react';
import { CreateMirror } from '../../../../daemon/src/contract/bodies/mirror';
import { Field } from '../form-rules';
import { hintOf, issueAt } from '../form-issues';
import type { Draft } from './mirror-form';

export type Setter = (patch: Partial<Draft>) => void;
const RULES = CreateMirror.shape;

// Browsers compile `pattern` with the `v` flag, where `/` and `-` in a class must be escaped:
// an unescaped one makes the whole pattern invalid and silently ignored.
export const TAG_PATTERN = '[^\\/\\s]+(\\/[^\\/\\s]+)?';

/** All versions, a vagrant-style constraint, or the latest N: the API takes one of them. */
export function VersionFields({ d, set, error }: { d: Draft; set: Setter; error: unknown }) {
  return (
    <>
      <fieldset aria-label="Versions">
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'all'}
            onChange={() => set({ versionMode: 'all' })}
          />{' '}
          All versions
        </label>
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'range'}
            onChange={() => set({ versionMode: 'range' })}
          />{' '}
          Versions matching
        </label>
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'latest'}
            onChange={() => set({ versionMode: 'latest' })}
          />{' '}
          Latest N
        </label>
      </fieldset>
      {d.versionMode === 'range' && (
        <Field label="Constraint" hint={hintOf(RULES.versions)} issue={issueAt(error, 'versions')}>
          {(control) => (
            <input
              name="versions"
              value={d.versions}
              onChange={(e) => set({ versions: e.target.value })}
              required
              {...control}
            />
          )}
        </Field>
      )}
      {d.versionMode === 'latest' && (
        <Field label="Latest" hint={hintOf(RULES.latest)} issue={issueAt(error, 'latest')}>
          {(control) => (
            <input
              name="latest"
              type="number"
              value={d.latest}
              onChange={(e) => set({ latest: e.target.value })}
              required
              {...control}
            />
          )}
        </Field>
      )}
    </>
  );
}

export function FilterFields({ d, set, error }: { d: Draft; set: Setter; error: unknown }) {
  return (
    <>
      <label>
        Providers
        <input
          name="providers"
          value={d.providers}
          onChange={(e) => set({ providers: e.target.value })}
          placeholder="e.g. virtualbox, libvirt (empty: all)"
        />
      </label>
      <label>
        Architectures
        <input
          name="architectures"
          value={d.architectures}
          onChange={(e) => set({ architectures: e.target.value })}
          placeholder="e.g. amd64, arm64 (empty: all)"
        />
      </label>
      <label>
        Visibility
        <select
          name="visibility"
          aria-label="Visibility"
          value={d.visibility}
          onChange={(e) => set({ visibility: e.target.value as Draft['visibility'] })}
        >
          <option value="">default (private if the upstream has a token)</option>
          <option value="public">public</option>
          <option value="private">private</option>
        </select>
      </label>
      <NumberField label="Every (minutes)" name="interval_minutes" rule={RULES.interval_minutes} error={error}>
        {[d.interval, (interval) => set({ interval })]}
      </NumberField>
      <NumberField label="Versions to keep" name="retain" rule={RULES.retain} error={error}>
        {[d.retain, (retain) => set({ retain })]}
      </NumberField>
    </>
  );
}

/** A number field with its rule under it: `children` is its value and setter. */
function NumberField(props: {
  label: ReactNode;
  name: string;
  rule: unknown;
  error: unknown;
  children: [string, (value: string) => void];
}) {
  const [value, onChange] = props.children;
  return (
    <Field label={props.label} hint={hintOf(props.rule)} issue={issueAt(props.error, props.name)}>
      {(control) => (
        <input name={props.name} type="number" value={value} onChange={(e) => onChange(e.target.value)} {...control} />
      )}
    </Field>
  );
}
