import type { Ref } from 'react';
import { Field } from './form-rules';
import { hintOf } from './form-issues';

/**
 * The name of an agent pool or a workspace (the contract's TfcName, one rule for both: `rule` is the body's name
 * field): labelled, its rule under it before anything is typed, and what is wrong with it beside it. The form checks
 * it against the same rule before sending (form-issues.ts `checked`).
 */
export function TfcNameField({
  label,
  rule,
  name,
  value,
  onChange,
  issue,
  inputRef,
}: {
  label: string;
  rule: unknown;
  /** The input's form name. */
  name: string;
  value: string;
  onChange: (value: string) => void;
  issue: string | undefined;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <Field label={label} hint={hintOf(rule)} issue={issue}>
      {(control) => (
        <input
          ref={inputRef}
          name={name}
          autoComplete="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          {...control}
        />
      )}
    </Field>
  );
}
