import { CopyField } from './ui';

/** What a two-factor change did, in words, with the recovery codes it issued (shown this once). */
export interface TwoFactorDone {
  message: string;
  codes?: string[];
}

/**
 * A two-factor change's success, and new recovery codes: each signs in once in place of a code, for a lost phone;
 * the daemon keeps only their hashes, so this is the one time they can be seen.
 */
export function TwoFactorDoneNote({ done }: { done: TwoFactorDone }) {
  return (
    <div className="note" role="status" aria-label="Two-factor changed">
      <p>{done.message}</p>
      {done.codes && (
        <>
          <p>
            Your recovery codes: each one signs you in once in place of a code, if you lose your phone. Keep them
            somewhere safe (a password manager, or printed). They are shown only now.
          </p>
          <ul className="mono" aria-label="Recovery codes">
            {done.codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <CopyField label="Recovery codes" lines value={done.codes.join('\n')} />
        </>
      )}
    </div>
  );
}
