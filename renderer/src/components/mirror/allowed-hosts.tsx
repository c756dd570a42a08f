import { useEffect, useState, type FormEvent } from 'react';
import { updateSettings } from '../../api/accounts';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import { ErrorNote, Section, useAction } from '../ui';
import { useRuntimeSettings } from './offline-settings';

/** One entry a line; blank lines and spaces around an entry do not count. */
const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * Settings (administrators): the hosts and networks upstreams of other users may reach besides
 * public addresses (`mirror_allowed_hosts`); the daemon refuses an entry it cannot read (403
 * `validation`, its message names the entry).
 */
export function AllowedHosts() {
  const { api } = useSession();
  const settings = useRuntimeSettings();
  const [text, setText] = useState('');
  const [edited, setEdited] = useState(false);
  const hosts = settings.data?.mirror_allowed_hosts;
  // The stored list fills the field, unless the user began typing before it arrived.
  useEffect(() => {
    if (hosts && !edited) setText(hosts.join('\n'));
  }, [hosts, edited]);
  const save = useAction((list: string[]) => updateSettings(api, { mirror_allowed_hosts: list }), [queryKeys.settings]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(linesOf(text));
  };
  return (
    <Section title="Mirror upstreams">
      <form className="stack" onSubmit={submit} aria-label="Allowed upstream hosts">
        <p className="muted" id="allowed-hosts-note">
          Upstreams made by users who are not administrators may reach only public addresses and these hosts or
          networks. One a line: an address (<code className="nowrap">192.168.1.20</code>), a network (
          <code className="nowrap">10.0.0.0/8</code>), a host name (<code className="nowrap">boxyard.lab</code>) or
          every host of a domain (<code className="nowrap">*.lab</code>).
        </p>
        <label>
          Allowed hosts and networks
          <textarea
            name="mirror_allowed_hosts"
            rows={5}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setEdited(true);
              save.reset();
            }}
            aria-describedby="allowed-hosts-note"
            spellCheck={false}
          />
        </label>
        <ErrorNote error={settings.error ?? save.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={!settings.data || save.isPending}>
            Save allowed hosts
          </button>
          {save.isSuccess && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
        </div>
      </form>
    </Section>
  );
}
