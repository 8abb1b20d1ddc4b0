/** Webhooks: /webhooks (list), /webhooks/new, /webhooks/:id (edit, rotate the secret, deliveries). */
import { Route, Routes } from 'react-router';
import { WebhookPage } from './detail.tsx';
import { NewWebhook } from './form.tsx';
import { WebhookList } from './list.tsx';
import '../../components/admin.css';

export default function Webhooks() {
  return (
    <Routes>
      <Route index element={<WebhookList />} />
      <Route path="new" element={<NewWebhook />} />
      <Route path=":id" element={<WebhookPage />} />
    </Routes>
  );
}
