// The dashboard's list pieces: a TanStack table rendered as a grid (columns with `meta: { num: true }` right-
// aligned), and the offset pager under a list.
import { flexRender, type Table } from '@tanstack/react-table';
import { formatInt } from './format';

const numClass = (meta: unknown) => ((meta as { num?: boolean } | undefined)?.num ? 'num' : undefined);

export function Grid<Row>({ table, testId }: { table: Table<Row>; testId: string }) {
  return (
    <table className="grid" data-testid={testId}>
      <thead>
        {table.getHeaderGroups().map((g) => (
          <tr key={g.id}>
            {g.headers.map((h) => (
              <th key={h.id} className={numClass(h.column.columnDef.meta)}>
                {flexRender(h.column.columnDef.header, h.getContext())}
              </th>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((r) => (
          <tr key={r.id}>
            {r.getVisibleCells().map((c) => (
              <td key={c.id} className={numClass(c.column.columnDef.meta)}>
                {flexRender(c.column.columnDef.cell, c.getContext())}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Previous / "from–to of total" / Next over an offset-paged list; nothing while everything fits on the first
 * page. `onOffset(undefined)` means the first page (so the URL drops the offset).
 */
export function Pager({
  total,
  offset,
  limit,
  onOffset,
}: {
  total: number;
  offset: number;
  limit: number;
  onOffset: (offset: number | undefined) => void;
}) {
  if (total <= limit && offset === 0) return null;
  return (
    <div className="pager">
      <button disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit) || undefined)}>
        Previous
      </button>
      <span data-testid="pager">
        {formatInt(Math.min(total, offset + 1))}–{formatInt(Math.min(total, offset + limit))} of {formatInt(total)}
      </span>
      <button disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </div>
  );
}
