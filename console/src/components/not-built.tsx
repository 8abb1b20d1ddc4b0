/** The honest page for a menu entry whose page is not written yet (pages.ts without `load`). */
import { API } from '../api/client.ts';
import type { PageEntry } from '../pages.ts';
import { EmptyState } from './ui.tsx';

export function NotBuilt({ page }: { page: PageEntry }) {
  return (
    <>
      <h1>{page.label}</h1>
      <EmptyState title="This page is not built yet">
        <p>The console does not manage {page.label.toLowerCase()} yet.</p>
        {page.api && (
          <p>
            Meanwhile the API does: <code>{`${API}/${page.api}/`}</code>, described in the <a href={`${API}/docs`}>API documentation</a>.
          </p>
        )}
      </EmptyState>
    </>
  );
}
