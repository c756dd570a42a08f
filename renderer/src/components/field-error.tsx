import { errorWords } from './form-issues';

/** A refused change in words, right beside the control that made it (`id` for aria-describedby). */
export function FieldError({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p className="error field-error" role="alert" id={id}>
      {errorWords(error)}
    </p>
  );
}
