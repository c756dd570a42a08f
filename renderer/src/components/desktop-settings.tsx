import { useEffect, useState, type FormEvent } from 'react';
import { DEFAULT_DESKTOP_SETTINGS, type DesktopBridge, type DesktopInfo } from '../../../daemon/src/contract/ipc';
import { CopyField, ErrorNote, Section } from './ui';

declare global {
  interface Window {
    boxyard?: DesktopBridge;
  }
}

/**
 * LAN access (over HTTPS unless switched off), port and data folder: only inside the desktop app, through the preload
 * bridge.
 */
export function DesktopSettings({ bridge }: { bridge: DesktopBridge }) {
  const [info, setInfo] = useState<DesktopInfo | null>(null);
  const [draft, setDraft] = useState(DEFAULT_DESKTOP_SETTINGS);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    void bridge.info().then((i) => {
      setInfo(i);
      setDraft(i.settings);
    }, setError);
  }, [bridge]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const next = await bridge.saveSettings(draft);
      setInfo(next);
      // The daemon restarts with the new settings; a new port means this page's origin moved.
      if (next.url && new URL(next.url).port !== window.location.port) window.location.href = `${next.url}/ui/settings`;
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Section title="Desktop app">
      <ErrorNote error={error} />
      {info && (
        <p className="muted">
          Daemon {info.state}
          {info.url ? ` at ${info.url}` : ''}. Version {info.version}.
          {info.lastError ? ` Last error: ${info.lastError}` : ''}
        </p>
      )}
      <form className="stack" onSubmit={(e) => void save(e)}>
        <label className="check">
          <input
            type="checkbox"
            checked={draft.lanAccess}
            onChange={(e) => setDraft({ ...draft, lanAccess: e.target.checked })}
          />{' '}
          Serve the local network (other machines can reach this Boxyard)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={draft.lanHttps}
            disabled={!draft.lanAccess}
            onChange={(e) => setDraft({ ...draft, lanHttps: e.target.checked })}
          />{' '}
          Over HTTPS (recommended: without it passwords and tokens cross the network in clear)
        </label>
        {draft.lanAccess && draft.lanHttps && (
          <>
            <p className="muted">
              With Boxyard&apos;s own certificate authority, unless you give your own certificate and key (PEM files;
              read again when they change), or a public URL for a certificate from Let&apos;s Encrypt (its name must
              resolve to this computer, with port 80 reachable from the internet; you agree to Let&apos;s Encrypt&apos;s
              terms).
            </p>
            <label>
              Your own certificate (optional)
              <input
                value={draft.tlsCert ?? ''}
                placeholder="/etc/ssl/boxyard/fullchain.pem"
                onChange={(e) => setDraft({ ...draft, tlsCert: e.target.value || undefined })}
              />
            </label>
            <label>
              Its key
              <input
                value={draft.tlsKey ?? ''}
                placeholder="/etc/ssl/boxyard/privkey.pem"
                onChange={(e) => setDraft({ ...draft, tlsKey: e.target.value || undefined })}
              />
            </label>
            <label>
              Or a Let&apos;s Encrypt certificate for the public URL (optional)
              <input
                value={draft.acmeUrl ?? ''}
                placeholder="https://boxes.example.org"
                onChange={(e) => setDraft({ ...draft, acmeUrl: e.target.value || undefined })}
              />
            </label>
            {draft.acmeUrl && (
              <label>
                E-mail for Let&apos;s Encrypt (optional)
                <input
                  type="email"
                  value={draft.acmeEmail ?? ''}
                  onChange={(e) => setDraft({ ...draft, acmeEmail: e.target.value || undefined })}
                />
              </label>
            )}
          </>
        )}
        {info?.caFingerprint && (
          <CopyField
            label="CA fingerprint (SHA-256): colleagues check it before they trust the CA (Overview shows their setup lines)"
            value={info.caFingerprint}
          />
        )}
        <label>
          Port
          <input
            type="number"
            min={1}
            max={65535}
            value={draft.port}
            onChange={(e) => setDraft({ ...draft, port: Number(e.target.value) })}
          />
        </label>
        <div className="row">
          <button type="submit" className="primary">
            Save and restart the daemon
          </button>
          {info && (
            <button type="button" onClick={() => void bridge.openDataDir()}>
              Open data folder ({info.dataDir})
            </button>
          )}
        </div>
      </form>
    </Section>
  );
}
