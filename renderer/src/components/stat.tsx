/** One figure with its label (and a note under it), in a `.stats` grid: the overview, a mirror plan. */
export function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="stat">
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
      {note && <span className="muted stat-note">{note}</span>}
    </div>
  );
}
