/** Create or edit an SMS campaign: every field, grouped; the API's messages beside each field. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { listPath, patch, post, recordPath } from '../../api/client.ts';
import type { SmsCampaignRecord } from '../../api/admin-types.ts';
import { bodyOf, GroupedForm, valuesOf, type FormValues } from '../../components/grouped-form.tsx';
import { SMS_DEFAULTS, SMS_GROUPS } from './fields.ts';

export function SmsCampaignForm({ campaign }: { campaign?: SmsCampaignRecord }) {
  const isNew = !campaign;
  const [initial] = useState(() => valuesOf(SMS_GROUPS, campaign as unknown as Record<string, unknown> | undefined, SMS_DEFAULTS));
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async (values: FormValues) => {
      const body = bodyOf(SMS_GROUPS, values, initial, isNew);
      if (isNew) return (await post<SmsCampaignRecord>(listPath('sms-campaigns'), body)).id;
      await patch(recordPath('sms-campaigns', campaign.id), body);
      return campaign.id;
    },
    onSuccess: async (id) => {
      await client.invalidateQueries({ queryKey: ['sms-campaigns'] });
      void navigate(`/sms-campaigns/${id}`);
    },
  });
  return (
    <GroupedForm
      title={isNew ? 'New SMS campaign' : `Edit ${campaign.name}`}
      noun="SMS campaign"
      groups={SMS_GROUPS}
      initial={initial}
      error={save.error}
      onSubmit={(v) => save.mutate(v)}
      actions={
        <>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : isNew ? 'Create SMS campaign' : 'Save changes'}
          </button>
          <Link to={isNew ? '/sms-campaigns' : `/sms-campaigns/${campaign.id}`}>Cancel</Link>
        </>
      }
    />
  );
}
