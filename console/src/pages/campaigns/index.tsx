/** Campaigns (voice): /campaigns (list), /campaigns/new, /campaigns/:id, /campaigns/:id/edit. */
import { Route, Routes } from 'react-router';
import { CampaignEdit, CampaignPage } from './detail.tsx';
import { CampaignForm } from './form.tsx';
import { CampaignList } from './list.tsx';

export default function Campaigns() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route path="new" element={<CampaignForm />} />
      <Route path=":id" element={<CampaignPage />} />
      <Route path=":id/edit" element={<CampaignEdit />} />
    </Routes>
  );
}
