import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { isApiError } from '../api/client';
import { login, requestSmsCode, type Credentials } from '../api/accounts';
import { useSession } from '../api/session';
import { ErrorNote } from '../components/ui';
import { useFocusWhenShown } from '../components/focus';

/** Delivery methods (`two_factor.delivery_methods`) when the daemon asks for a code (two_factor_required). */
function twoFactorMethods(e: unknown): string[] | null {
  if (!isApiError(e, 'two_factor_required')) return null;
  const tf = (e.body as { two_factor?: { delivery_methods?: string[] } } | null)?.two_factor;
  return tf?.delivery_methods ?? ['app'];
}

type Form = Required<Credentials>;
type Set = (k: keyof Form) => (e: { target: { value: string } }) => void;

function PasswordStep({ form, set }: { form: Form; set: Set }) {
  const first = useFocusWhenShown<HTMLInputElement>();
  return (
    <>
      <label>
        Username or e-mail
        <input ref={first} name="login" autoComplete="username" value={form.login} onChange={set('login')} required />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={form.password}
          onChange={set('password')}
          required
        />
      </label>
    </>
  );
}

function CodeStep({ form, set, methods }: { form: Form; set: Set; methods: string[] }) {
  const { api } = useSession();
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const codeField = useFocusWhenShown<HTMLInputElement>();
  const sendSms = async () => {
    setError(null);
    try {
      setNote(`A code was sent to ${(await requestSmsCode(api, form)).two_factor.obfuscated_destination}.`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <p>
        Enter the code from your {methods.includes('app') ? 'authenticator app' : 'phone'}, or one of your recovery
        codes if you lost it.
      </p>
      <label>
        Two-factor code
        <input
          ref={codeField}
          name="code"
          autoComplete="one-time-code"
          value={form.code}
          onChange={set('code')}
          required
        />
      </label>
      {methods.includes('sms') && (
        <button type="button" className="link" onClick={() => void sendSms()}>
          Send a code by SMS
        </button>
      )}
      {note && <p className="muted">{note}</p>}
      <ErrorNote error={error} />
    </>
  );
}

/**
 * Password first; when the daemon answers two_factor_required, a second step asks for the code.
 * Once signed in, app.tsx (SignInRoute) goes back to where the user was.
 */
export function LoginPage() {
  const session = useSession();
  const [form, setForm] = useState<Form>({ login: '', password: '', code: '' });
  const [methods, setMethods] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set: Set = (k) => (e) => setForm({ ...form, [k]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      session.signIn(await login(session.api, { ...form, code: methods ? form.code : undefined }));
    } catch (err) {
      const m = twoFactorMethods(err);
      if (m && !methods) setMethods(m);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <form className="card" onSubmit={(e) => void submit(e)}>
        <h1>Boxyard</h1>
        {methods ? <CodeStep form={form} set={set} methods={methods} /> : <PasswordStep form={form} set={set} />}
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {methods && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setMethods(null);
              setForm({ ...form, code: '' });
            }}
          >
            Back
          </button>
        )}
        <Link to="/boxes">Browse the public boxes</Link>
      </form>
    </main>
  );
}
