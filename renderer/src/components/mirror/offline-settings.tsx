import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { getSettings, updateSettings, type SettingsPatch } from '../../api/accounts';
import { listUpstreams } from '../../api/mirrors';
import { useSession } from '../../api/session';
import { ErrorNote, Section, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';

/** The daemon's run-time settings; the header polls them so a switch made elsewhere shows up. */
export function useRuntimeSettings() {
  const { api } = useSession();
  return useQuery({ queryKey: queryKeys.settings, queryFn: () => getSettings(api), refetchInterval: 30_000 });
}

/** Shown in the header while the daemon makes no outbound connection. */
export function OfflineBadge() {
  const settings = useRuntimeSettings();
  if (!settings.data?.offline) return null;
  return (
    <Link
      to="/settings/administration"
      className="badge badge-offline"
      title="No outbound connections: mirror jobs wait, the cache answers what it holds"
    >
      Offline
    </Link>
  );
}

/** A line on the Mirrors page saying why jobs do not start. */
export function OfflineNote() {
  const settings = useRuntimeSettings();
  if (!settings.data?.offline) return null;
  return (
    <p className="secret">
      Boxyard is <strong>offline</strong>: queued jobs wait and the pull-through cache serves only what it holds.{' '}
      {settings.data.offline_forced ? (
        'It was started with --offline.'
      ) : (
        <Link to="/settings/administration">Go online in Settings → Administration</Link>
      )}
    </p>
  );
}

function OfflineSwitch() {
  const { api, admin } = useSession();
  const settings = useRuntimeSettings();
  const toggle = useAction(
    (offline: boolean) => updateSettings(api, { offline }),
    [queryKeys.settings, queryKeys.mirrors],
  );
  const s = settings.data;
  const on = s?.offline ?? false;
  return (
    <div className="stack-wide setting-block">
      <p>
        While offline, Boxyard opens no outbound connection: mirror jobs wait and the pull-through cache answers only
        with what it holds. It is <strong>{on ? 'offline' : 'online'}</strong>.
      </p>
      {s?.offline_forced && (
        <p className="muted">
          The daemon was started with <code>--offline</code> (or <code>BOXYARD_OFFLINE</code>): restart it without to go
          online.
        </p>
      )}
      {admin ? (
        <div className="row">
          <button
            type="button"
            className={on ? 'primary' : 'danger'}
            disabled={!s || toggle.isPending || !!s.offline_forced}
            onClick={() => toggle.mutate(!on)}
          >
            {on ? 'Go online' : 'Go offline'}
          </button>
        </div>
      ) : (
        <p className="muted">Only administrators can switch it.</p>
      )}
      <ErrorNote error={toggle.error} />
    </div>
  );
}

/** Which upstream answers boxes this daemon does not hold, and how long a cached catalog stays fresh. */
function PullThrough() {
  const { api, admin } = useSession();
  const settings = useRuntimeSettings();
  const upstreams = useQuery({ queryKey: queryKeys.upstreams, queryFn: () => listUpstreams(api), enabled: admin });
  const [draft, setDraft] = useState({ upstream: '', maxAge: '30' });
  const s = settings.data;
  useEffect(() => {
    if (s) setDraft({ upstream: s.pull_through_upstream_id ?? '', maxAge: String(s.cache_max_age_minutes ?? 30) });
  }, [s]);
  const save = useAction((patch: SettingsPatch) => updateSettings(api, patch), [queryKeys.settings, queryKeys.cache]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ pull_through_upstream_id: draft.upstream || null, cache_max_age_minutes: Number(draft.maxAge) });
  };
  const current = upstreams.data?.find((u) => u.id === s?.pull_through_upstream_id);
  if (!admin) return <p className="muted">Pull-through cache: {s?.pull_through_upstream_id ? 'on' : 'off'}.</p>;
  return (
    <form className="stack" onSubmit={submit} aria-label="Pull-through cache">
      <h3>Pull-through cache</h3>
      <p className="muted">
        A box that is not here is answered from this upstream's catalog; its file is stored on first download.{' '}
        {current ? `Now: ${current.name}.` : 'Now: none.'}
      </p>
      <label>
        Upstream
        <select
          name="pull_through_upstream"
          aria-label="Pull-through upstream"
          value={draft.upstream}
          onChange={(e) => setDraft({ ...draft, upstream: e.target.value })}
        >
          <option value="">none (no pull-through)</option>
          {(upstreams.data ?? []).map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} ({u.url})
            </option>
          ))}
        </select>
      </label>
      <label>
        Cache max age (minutes)
        <input
          name="cache_max_age_minutes"
          type="number"
          min={0}
          value={draft.maxAge}
          onChange={(e) => setDraft({ ...draft, maxAge: e.target.value })}
          required
        />
      </label>
      <ErrorNote error={upstreams.error ?? save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={!s || save.isPending}>
          Save cache settings
        </button>
        {save.isSuccess && <span className="muted">Saved.</span>}
      </div>
    </form>
  );
}

/** Settings page section: the offline switch (also the desktop app's) and the pull-through cache. */
export function OfflineSettings() {
  const settings = useRuntimeSettings();
  return (
    <Section title="Offline and pull-through cache">
      <ErrorNote error={settings.error} />
      <OfflineSwitch />
      <PullThrough />
    </Section>
  );
}
