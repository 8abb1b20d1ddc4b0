/**
 * A list read from the API a page at a time, as every list page shows it: the error, "Loading…",
 * the empty state when there is nothing, else the rows and the pager. The page of a whole-page
 * list is in the URL (`?page=2`, so Back and a shared link keep it); a list inside a record's
 * page (its calls, deliveries) keeps its page in state and reads the API through its own query.
 */
import { useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { get, listPath, type Page } from '../api/client.ts';
import { ErrorMessage, Loading, Pager } from './ui.tsx';

export const PAGE_SIZE = 20;

/** A page as the lists give it: the API's page, or a bare array's (getArrayPage) without `count`. */
export type ListPage<T> = Pick<Page<T>, 'results' | 'next'> & { count?: number };

/** One page of a resource's list. */
export interface PagedQuery<T> {
  query: UseQueryResult<ListPage<T>>;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
}

/**
 * The page of `resource` named by the URL's `?page=`; its query key is [resource, 'page', n], so
 * invalidating [resource] (a mutation, a live event) refreshes it. The previous page stays shown
 * while the next one loads.
 */
export function useUrlPagedList<T>(resource: string): PagedQuery<T> {
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const query = useQuery({
    queryKey: [resource, 'page', page],
    queryFn: () => get<Page<T>>(listPath(resource, { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return { query, page, pageSize: PAGE_SIZE, onPage: (p) => setSearch({ page: String(p) }) };
}

/**
 * A list inside a record's page (a campaign's calls, a webhook's deliveries): its page in state,
 * its query key `key` followed by the page (so invalidating `key`, or a prefix of it, refreshes
 * it), read from `path(page, pageSize)` (by `options.read`: getArrayPage for a list the API gives
 * as a bare array). Set the page back to 1 (onPage) when filters change.
 */
export function usePagedQuery<T>(
  key: readonly unknown[],
  path: (page: number, pageSize: number) => string,
  options: { pageSize?: number; refetchInterval?: number; enabled?: boolean; read?: (path: string, page: number) => Promise<ListPage<T>> } = {},
): PagedQuery<T> {
  const [page, setPage] = useState(1);
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const read = options.read ?? ((p: string) => get<Page<T>>(p));
  const query = useQuery({
    queryKey: [...key, page],
    queryFn: () => read(path(page, pageSize), page),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval,
    enabled: options.enabled,
  });
  return { query, page, pageSize, onPage: setPage };
}

/**
 * The list's error, then "Loading…", `empty` when it has no row, or `children(rows)` and the pager
 * (a list without a count: "Page n", Next while the API gives a next page).
 */
export function PagedResults<T>({ list, empty, children }: { list: PagedQuery<T>; empty: ReactNode; children: (rows: T[]) => ReactNode }) {
  const { query, page, pageSize, onPage } = list;
  const data = query.data;
  const none = !data || (data.count === undefined ? page === 1 && data.results.length === 0 : data.count === 0);
  return (
    <>
      <ErrorMessage error={query.error} />
      {query.isPending ? (
        <Loading />
      ) : none ? (
        empty
      ) : (
        <>
          {children(data.results)}
          <Pager page={page} count={data.count} pageSize={pageSize} hasNext={data.next !== null} onPage={onPage} />
        </>
      )}
    </>
  );
}

/** A table that scrolls sideways in its own box, its caption for screen readers, `head` the header cells. */
export function ResultsTable({
  caption,
  head,
  children,
  className,
  testId,
}: {
  caption: string;
  head: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <div className="table-wrap">
      <table className={className} data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A header cell for a column of row buttons: named for screen readers, blank on screen. */
export function ActionsHead() {
  return (
    <th scope="col">
      <span className="sr-only">Actions</span>
    </th>
  );
}
