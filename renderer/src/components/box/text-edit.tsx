import { useId, useState, type FormEvent } from 'react';
import { FieldError } from '../field-error';

interface TextEditProps {
  /** The field's label, also the name of its Edit button ("Edit short description"). */
  label: string;
  value: string;
  multiline?: boolean;
  placeholder?: string;
  /** Saves; a refusal shows beside the field, which stays open with what was typed. */
  save(value: string): Promise<unknown>;
}

/** One text field of a box or version, shown as it is until "Edit", then saved on its own. */
export function TextEdit({ label, value, multiline, placeholder, save }: TextEditProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const errorId = useId();
  if (draft === null) {
    return (
      <button
        type="button"
        className="link small-text"
        onClick={() => {
          setDraft(value);
          setError(null);
        }}
      >
        Edit {label.toLowerCase()}
      </button>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    try {
      await save(draft);
      setDraft(null);
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  const field = {
    'aria-label': label,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errorId : undefined,
    value: draft,
    placeholder,
  };
  return (
    <form className="text-edit" onSubmit={(e) => void submit(e)}>
      {multiline ? (
        <textarea {...field} rows={6} onChange={(e) => setDraft(e.target.value)} />
      ) : (
        <input {...field} onChange={(e) => setDraft(e.target.value)} />
      )}
      {multiline && (
        <span className="muted small-text">Markdown: **bold**, _italic_, `code`, [links](https://…), lists.</span>
      )}
      <FieldError error={error} id={errorId} />
      <div className="row">
        <button type="submit" className="primary small" disabled={saving}>
          Save {label.toLowerCase()}
        </button>
        <button
          type="button"
          className="small"
          onClick={() => {
            setDraft(null);
            setError(null);
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
