import type { ReactNode } from 'react';

/**
 * The UI's one kind of data table. On a phone (styles.css, `table.cards`) each row becomes a card of labelled lines:
 * a cell's `data-label` (its column's name) stands before it, and the header row is left to screen readers, so that
 * no column, and no action, sits off the screen. `columns` is the header row; a `false` entry leaves out a column
 * whose cells are left out too (an action column for those who may not act). An action cell takes no `data-label`:
 * its buttons say what they do.
 */
export function CardTable({
  label,
  columns,
  className,
  children,
}: {
  /** The table's accessible name (tests and screen readers find it by it). */
  label: string;
  columns: Array<string | false>;
  className?: string;
  /** The rows. */
  children: ReactNode;
}) {
  return (
    <table aria-label={label} className={className ? `cards ${className}` : 'cards'}>
      <thead>
        <tr>
          {columns.map(
            (c) =>
              c && (
                <th key={c} scope="col">
                  {c}
                </th>
              ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
