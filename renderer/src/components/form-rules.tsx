import { useId, type ReactNode } from 'react';

/** What a field's control is given: its id (the label's `htmlFor`), its hint's and issue's ids, whether invalid. */
export interface ControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

interface FieldProps {
  label: ReactNode;
  /** The rule in words, shown under the field before anything is typed. */
  hint?: string;
  /** What is wrong with what was typed, in words. */
  issue?: string;
  className?: string;
  /** The control, given its id and the ids of the hint and the issue: spread them on it. */
  children: (control: ControlProps) => ReactNode;
}

/**
 * A labelled control with its rule under it (from the contract: form-issues.ts's `hintOf`) and,
 * after a refusal, what is wrong right beside it (`issueAt`).
 */
export function Field({ label, hint, issue, className, children }: FieldProps) {
  const id = useId();
  const describedBy = [hint && `${id}-hint`, issue && `${id}-issue`].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={`${id}-control`}>{label}</label>
      {children({ id: `${id}-control`, 'aria-describedby': describedBy, 'aria-invalid': issue ? true : undefined })}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {issue && (
        <p className="error field-error" role="alert" id={`${id}-issue`}>
          {issue}
        </p>
      )}
    </div>
  );
}
