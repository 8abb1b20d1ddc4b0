/** Create or edit a voice campaign: every field, grouped; the API's messages beside each field. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { listPath, patch, post, recordPath } from '../../api/client.ts';
import type { VoiceCampaign } from '../../api/types.ts';
import { GroupedForm, type FormValues } from '../../components/grouped-form.tsx';
import { GROUPS, initialValues, requestBody } from './fields.ts';

export function CampaignForm({ campaign }: { campaign?: VoiceCampaign }) {
  const isNew = !campaign;
  const [initial] = useState(() => initialValues(campaign));
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async (values: FormValues) => {
      const body = requestBody(values, initial, isNew);
      if (isNew) return (await post<VoiceCampaign>(listPath('campaigns'), body)).id;
      await patch(recordPath('campaigns', campaign.id), body);
      return campaign.id;
    },
    onSuccess: async (id) => {
      await client.invalidateQueries({ queryKey: ['campaigns'] });
      void navigate(`/campaigns/${id}`);
    },
  });
  return (
    <GroupedForm
      title={isNew ? 'New campaign' : `Edit ${campaign.name}`}
      noun="campaign"
      daysLegend="Calling days"
      groups={GROUPS}
      initial={initial}
      error={save.error}
      onSubmit={(v) => save.mutate(v)}
      actions={
        <>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : isNew ? 'Create campaign' : 'Save changes'}
          </button>
          <Link to={isNew ? '/campaigns' : `/campaigns/${campaign.id}`}>Cancel</Link>
        </>
      }
    />
  );
}
