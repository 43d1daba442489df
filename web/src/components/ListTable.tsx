// A container table of one list read from the API (lib/useFetch): the loading text until the first answer, the
// count once it came, a Refresh button ahead of the list's own actions, and what to say when it is empty.

import type { ReactNode } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Header from '@cloudscape-design/components/header';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table, { type TableProps } from '@cloudscape-design/components/table';

type Props<T> = Omit<TableProps<T>, 'variant' | 'header' | 'empty' | 'loading' | 'loadingText' | 'items'> & {
  /** The list's noun as a sentence says it ("instance groups", "Spaces"): its heading, capitalised, and the
   * Refresh button's and the loading text's words. */
  what: string;
  /** What useFetch returned: the answer (null until the first), whether it is loading, and how to read again. */
  fetched: { data: { items: T[] } | null; loading: boolean; reload: () => unknown };
  /** What the table says when the list is empty. */
  empty: ReactNode;
  description?: ReactNode;
  /** Controls before the Refresh button (a checkbox that an action reads). */
  before?: ReactNode;
  /** The list's buttons, after Refresh. */
  actions?: ReactNode;
};

export default function ListTable<T>({ what, fetched, empty, description, before, actions, ...table }: Props<T>) {
  const { data, loading, reload } = fetched;
  const items = data?.items ?? [];
  return (
    <Table
      wrapLines
      {...table}
      variant="container"
      items={items}
      loading={loading && !data}
      loadingText={`Loading ${what}`}
      empty={<Box textAlign="center">{empty}</Box>}
      header={
        <Header
          variant="h2"
          counter={data ? `(${items.length})` : undefined}
          description={description}
          actions={
            <SpaceBetween direction="horizontal" size="xs" alignItems="center">
              {before}
              <Button iconName="refresh" ariaLabel={`Refresh ${what}`} onClick={() => void reload()} />
              {actions}
            </SpaceBetween>
          }
        >
          {what.charAt(0).toUpperCase() + what.slice(1)}
        </Header>
      }
    />
  );
}
