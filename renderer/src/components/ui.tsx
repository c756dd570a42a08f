import { useId, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';

/** An error from a query or mutation, in words. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="muted">Loading {what}…</p>;
}

/**
 * Copies text. Browsers offer the Clipboard API only on secure origins (https, localhost), and a
 * LAN daemon is usually plain http: there, select the text and use the older copy command.
 */
async function copyText(value: string, el: HTMLElement | null): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(value);
    return true;
  }
  if (!el) return false;
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  return document.execCommand('copy');
}

/** Text shown in a code block with a Copy button (snippets, secrets); `lines` keeps its line breaks (a Vagrantfile). */
export function CopyField({ value, label, lines }: { value: string; label: string; lines?: boolean }) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  const ref = useRef<HTMLElement>(null);
  const copy = async () => {
    const ok = await copyText(value, ref.current).catch(() => false);
    setState(ok ? 'copied' : 'select');
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <div className={lines ? 'copy-field copy-lines' : 'copy-field'}>
      {/* An output (a value the app made for the user) can be named: the label says what the value is. */}
      <output aria-label={label}>
        <code ref={ref}>{value}</code>
      </output>
      <button type="button" onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : state === 'select' ? 'Press Ctrl+C' : 'Copy'}
      </button>
    </div>
  );
}

/** A freshly created secret (API or agent token): shown here once, never again. */
export function SecretOnce({ secret, label, onDone }: { secret: string | null; label: string; onDone: () => void }) {
  if (!secret) return null;
  return (
    <div className="secret">
      <p>
        <strong>Copy this token now.</strong> It is shown only once.
      </p>
      <CopyField label={label} value={secret} />
      <button type="button" className="link" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

/** A card with a heading, which names it: screen readers list it among the page's regions. */
export function Section({
  title,
  actions,
  children,
  id,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  /** An anchor other pages link to (`/settings#tokens`). */
  id?: string;
}) {
  const heading = useId();
  return (
    <section className="card" id={id} aria-labelledby={heading}>
      <header className="card-head">
        <h2 id={heading}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A state as a coloured badge (styles.css `badge-STATE`), shown as `label` where the API's word is not the UI's. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`badge badge-${status}`}>{label ?? status}</span>;
}

export const formatTime = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * A mutation that refreshes the given queries when it succeeds: the one shape every button and
 * form on these pages needs.
 */
export function useAction<A, R>(fn: (arg: A) => Promise<R>, invalidate: QueryKey[], onDone?: (r: R) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (r) => {
      await Promise.all(invalidate.map((queryKey) => qc.invalidateQueries({ queryKey })));
      onDone?.(r);
    },
  });
}

/** A confirm() in front of a destructive action. */
export const confirmed = (what: string): boolean => window.confirm(`${what}? This cannot be undone.`);
