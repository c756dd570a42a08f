/**
 * An upstream's token, in every form that sends one (a new upstream, a move from HCP Vagrant): a password field the
 * browser does not fill with a saved password, sent as `upstream_token`, that sets the form's draft `token`. `title`
 * or `aria-describedby` says where it goes.
 */
export function UpstreamTokenField({
  label,
  value,
  onChange,
  ...note
}: {
  label: string;
  value: string;
  onChange: (patch: { token: string }) => void;
  title?: string;
  'aria-describedby'?: string;
}) {
  return (
    <label>
      {label}
      <input
        name="upstream_token"
        type="password"
        autoComplete="new-password"
        value={value}
        onChange={(e) => onChange({ token: e.target.value })}
        {...note}
      />
    </label>
  );
}
