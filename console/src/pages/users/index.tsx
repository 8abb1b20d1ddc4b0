/** Users (admins only, /rest-api/accounts/): /users (list), /users/new, /users/:id (edit). */
import { Route, Routes } from 'react-router';
import { AccountEdit, AccountForm } from './form.tsx';
import { AccountList } from './list.tsx';

export default function Users() {
  return (
    <Routes>
      <Route index element={<AccountList />} />
      <Route path="new" element={<AccountForm />} />
      <Route path=":id" element={<AccountEdit />} />
    </Routes>
  );
}
