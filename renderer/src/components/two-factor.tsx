import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { toString as qrSvg } from 'qrcode/lib/browser';
import { beginTotp, twoFactorState } from '../api/accounts';
import { confirmTotp, disableTwoFactor, enableSms, newRecoveryCodes } from '../api/credentials';
import type { DeliveryMethod } from '../../../daemon/src/contract/wire/accounts';
import { useSession } from '../api/session';
import { CopyField, ErrorNote, Section, confirmed, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { TwoFactorDoneNote, type TwoFactorDone } from './recovery-codes';
// Refused changes in words (a missing or wrong current password, not the API's parameter names).
import { FieldError } from './field-error';

function QrImage({ text }: { text: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void qrSvg(text, { type: 'svg', margin: 1 }).then((s) => {
      if (live) setSvg(s);
    });
    return () => {
      live = false;
    };
  }, [text]);
  return svg ? (
    <img
      className="qr"
      alt="QR code for your authenticator app"
      src={`data:image/svg+xml;utf8,${encodeURIComponent(svg)}`}
    />
  ) : null;
}

/** SMS codes go to this phone through the daemon's configured sender (command or webhook). */
function SmsForm({ currentPassword, onEnabled }: { currentPassword: string; onEnabled: (codes?: string[]) => void }) {
  const { api } = useSession();
  const [phone, setPhone] = useState('');
  const enable = useAction(
    () => enableSms(api, phone, currentPassword),
    [queryKeys.twoFactor],
    (r) => {
      setPhone('');
      onEnabled(r.two_factor.recovery_codes);
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    enable.mutate(undefined);
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="SMS codes">
      <input
        name="phone"
        type="tel"
        placeholder="+41 79 123 45 67"
        value={phone}
        onChange={(e) => setPhone(e.target.value)}
        required
      />
      <button type="submit" disabled={enable.isPending}>
        Send codes by SMS
      </button>
      <FieldError error={enable.error} />
    </form>
  );
}

/**
 * Authenticator-app (TOTP) setup: a new secret, then a code from the app to switch it on (an
 * authenticator already set up keeps working until then). Every change asks for the current password.
 */
export function TwoFactor() {
  const { api } = useSession();
  const key = queryKeys.twoFactor;
  const state = useQuery({ queryKey: key, queryFn: () => twoFactorState(api) });
  const [setup, setSetup] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<TwoFactorDone | null>(null);
  // A change went through: say so, and the password typed for it leaves its field.
  const finish = (message: string, codes?: string[]) => {
    setPassword('');
    setDone({ message, codes });
  };
  const begin = useAction(
    () => beginTotp(api),
    [],
    (s) => {
      setDone(null);
      setSetup(s);
    },
  );
  const confirm = useAction(
    () => confirmTotp(api, code, password),
    [key],
    (r) => {
      setSetup(null);
      setCode('');
      finish('The authenticator app is on: signing in now asks for its code.', r.two_factor.recovery_codes);
    },
  );
  const disable = useAction(
    (m: DeliveryMethod) => disableTwoFactor(api, m, password),
    [key],
    () => finish('Switched off.'),
  );
  const recovery = useAction(
    () => newRecoveryCodes(api, password),
    [key],
    (r) => finish('New recovery codes: the earlier ones no longer work.', r.two_factor.recovery_codes),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    confirm.mutate(undefined);
  };
  const on = state.data?.delivery_methods ?? [];
  return (
    <Section title="Two-factor authentication">
      <ErrorNote error={state.error} />
      <FieldError error={begin.error ?? disable.error ?? recovery.error} />
      {done && <TwoFactorDoneNote done={done} />}
      <p>
        Authenticator app: <strong>{on.includes('app') ? 'on' : 'off'}</strong>. SMS codes:{' '}
        <strong>{on.includes('sms') ? 'on' : 'off'}</strong>.
        {on.length > 0 && <> Recovery codes left: {state.data?.recovery_codes_left}.</>}
      </p>
      <label>
        Current password (needed to switch a method on or off)
        <input
          name="current_password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <div className="row">
        {!setup && (
          <button type="button" onClick={() => begin.mutate(undefined)}>
            {on.includes('app') ? 'Set up a new authenticator' : 'Set up an authenticator app'}
          </button>
        )}
        {on.includes('app') && (
          <button
            type="button"
            className="danger"
            onClick={() => confirmed('Switch off the authenticator app') && disable.mutate('app')}
          >
            Switch off authenticator
          </button>
        )}
        {on.includes('sms') && (
          <button type="button" className="danger" onClick={() => disable.mutate('sms')}>
            Switch off SMS
          </button>
        )}
        {on.length > 0 && (
          <button
            type="button"
            onClick={() =>
              confirmed('New recovery codes (the earlier ones stop working)') && recovery.mutate(undefined)
            }
          >
            New recovery codes
          </button>
        )}
      </div>
      {!on.includes('sms') && !setup && (
        <SmsForm
          currentPassword={password}
          onEnabled={(codes) => finish('SMS codes are on: signing in now asks for the code sent to your phone.', codes)}
        />
      )}
      {setup && (
        <div className="totp-setup">
          <QrImage text={setup.otpauth_url} />
          <div className="stack">
            <p>Scan the code, or enter the secret in your authenticator app, then type the code it shows.</p>
            <CopyField label="TOTP secret" value={setup.secret} />
            <CopyField label="otpauth URL" value={setup.otpauth_url} />
            <form className="inline" onSubmit={submit}>
              <input
                name="totp_code"
                inputMode="numeric"
                placeholder="123456"
                value={code}
                onChange={(e) => setCode(e.target.value)}
                required
              />
              <button type="submit" className="primary" disabled={confirm.isPending}>
                Confirm
              </button>
              <button type="button" className="link" onClick={() => setSetup(null)}>
                Cancel
              </button>
            </form>
            <FieldError error={confirm.error} />
          </div>
        </div>
      )}
    </Section>
  );
}
