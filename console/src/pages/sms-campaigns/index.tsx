/** SMS campaigns: /sms-campaigns (list), /sms-campaigns/new, /sms-campaigns/:id, /sms-campaigns/:id/edit. */
import { Route, Routes } from 'react-router';
import { SmsCampaignEdit, SmsCampaignPage } from './detail.tsx';
import { SmsCampaignForm } from './form.tsx';
import { SmsCampaignList } from './list.tsx';
import '../../components/admin.css';

export default function SmsCampaigns() {
  return (
    <Routes>
      <Route index element={<SmsCampaignList />} />
      <Route path="new" element={<SmsCampaignForm />} />
      <Route path=":id" element={<SmsCampaignPage />} />
      <Route path=":id/edit" element={<SmsCampaignEdit />} />
    </Routes>
  );
}
