import { useEffect, useState } from 'react';
import type { DesktopBridge, DesktopInfo, Welcome } from '../../../daemon/src/contract/ipc';
import { CopyField, ErrorNote } from './ui';

/**
 * The desktop app's first run: the administrator account the daemon created (its generated
 * password is shown here once, and forgotten when dismissed), the LAN switch, the data folder and
 * the URL to give colleagues. Shown only inside the desktop app (the preload bridge), before
 * sign-in, since the password is what signs in.
 */
export function DesktopWelcome({ bridge }: { bridge: DesktopBridge | undefined }) {
  const [welcome, setWelcome] = useState<Welcome>(null);
  const [info, setInfo] = useState<DesktopInfo | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!bridge) return;
    void bridge.welcome().then(async (w) => {
      setWelcome(w);
      if (w) setInfo(await bridge.info());
    }, setError);
  }, [bridge]);
  if (!bridge || !welcome) return null;

  const setLan = async (lanAccess: boolean) => {
    setError(null);
    try {
      if (info) setInfo(await bridge.saveSettings({ ...info.settings, lanAccess }));
    } catch (err) {
      setError(err);
    }
  };
  const done = async () => {
    await bridge.dismissWelcome().catch(setError);
    setWelcome(null);
  };
  return (
    <section className="welcome" aria-labelledby="welcome-title">
      <h2 id="welcome-title">Welcome to Boxyard</h2>
      <p>
        Boxyard created an administrator account for you. <strong>Save the password now:</strong> it is shown only this
        once (change it later under Settings).
      </p>
      <CopyField label="Administrator user name" value={welcome.username} />
      <CopyField label="Administrator password" value={welcome.password} />
      {info && (
        <>
          <label className="check">
            <input type="checkbox" checked={info.settings.lanAccess} onChange={(e) => void setLan(e.target.checked)} />{' '}
            Serve the local network, so that colleagues&apos; machines can use this Boxyard
          </label>
          {info.lanUrls.length > 0 ? (
            <>
              {info.lanUrls.map((u) => (
                <CopyField key={u} label="URL for colleagues" value={u} />
              ))}
              {info.caFingerprint && (
                <CopyField
                  label="Boxyard's CA fingerprint (SHA-256), for colleagues to check: npx boxyard trust URL --fingerprint …"
                  value={info.caFingerprint}
                />
              )}
            </>
          ) : (
            <p className="muted">
              Only this computer reaches Boxyard{info.url ? ` (${info.url})` : ''}. Turn on the local network to give
              colleagues a URL.
            </p>
          )}
          <p className="muted">
            Boxes and the database are kept in <code>{info.dataDir}</code>.{' '}
            <button type="button" className="link" onClick={() => void bridge.openDataDir()}>
              Open the data folder
            </button>
          </p>
        </>
      )}
      <ErrorNote error={error} />
      <button type="button" className="primary" onClick={() => void done()}>
        I have saved the password
      </button>
    </section>
  );
}
