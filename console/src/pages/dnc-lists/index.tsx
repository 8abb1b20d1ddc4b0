/** DNC lists: /dnc-lists (the lists, a new one, "is this number blocked?") and /dnc-lists/:id (its numbers). */
import { Route, Routes } from 'react-router';
import { DncListPage } from './detail.tsx';
import { DncLists } from './list.tsx';

export default function DncListsPage() {
  return (
    <Routes>
      <Route index element={<DncLists />} />
      <Route path=":id" element={<DncListPage />} />
    </Routes>
  );
}
