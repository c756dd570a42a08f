import { useEffect, useState, type FormEvent } from 'react';
import { ARCHITECTURES } from '../../../../daemon/src/contract/bodies/registry';
import { LIST_SORTS, type BoxListParams, type ListSort } from '../../api/catalogue';

const SORT_LABELS: Record<ListSort, string> = {
  downloads: 'Most downloaded',
  updated: 'Recently updated',
  name: 'Name',
};
/** Offered as suggestions: any provider name can be typed. */
const COMMON_PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'hyperv', 'parallels', 'qemu', 'docker'];

/**
 * Search text, sort, provider and architecture of the boxes list. A choice from a list applies at
 * once; typed text applies on submit. Every change goes back to the first page.
 */
export function BoxFilters({ params, onChange }: { params: BoxListParams; onChange(p: BoxListParams): void }) {
  const [q, setQ] = useState(params.q);
  const [provider, setProvider] = useState(params.provider);
  // The URL may change under the form (Back, a link): show what it says.
  useEffect(() => {
    setQ(params.q);
    setProvider(params.provider);
  }, [params.q, params.provider]);
  const apply = (change: Partial<BoxListParams>) => onChange({ ...params, q, provider, ...change, page: 1 });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply({});
  };
  return (
    <search aria-label="Find boxes">
      <form className="filters" onSubmit={submit}>
        <label className="grow">
          Search boxes
          <input
            type="search"
            placeholder="Name, description or owner"
            value={q}
            onChange={(e) => setQ(e.target.value)}
          />
        </label>
        <label>
          Provider
          <input
            list="box-filter-providers"
            placeholder="Any"
            value={provider}
            onChange={(e) => setProvider(e.target.value)}
          />
          <datalist id="box-filter-providers">
            {COMMON_PROVIDERS.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </label>
        <label>
          Architecture
          <select value={params.architecture} onChange={(e) => apply({ architecture: e.target.value })}>
            <option value="">Any</option>
            {ARCHITECTURES.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by
          <select value={params.sort} onChange={(e) => apply({ sort: e.target.value as ListSort })}>
            {LIST_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
