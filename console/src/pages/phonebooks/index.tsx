/** Phonebooks: /phonebooks (the list, a new one) and /phonebooks/:id (its contacts, import, export). */
import { Route, Routes } from 'react-router';
import { PhonebookPage } from './detail.tsx';
import { PhonebookList } from './list.tsx';

export default function Phonebooks() {
  return (
    <Routes>
      <Route index element={<PhonebookList />} />
      <Route path=":id" element={<PhonebookPage />} />
    </Routes>
  );
}
