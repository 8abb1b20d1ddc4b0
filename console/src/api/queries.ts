/**
 * Queries several pages share. A query key starts with the API resource's path segment
 * (api/events.tsx invalidates by it): ['campaigns', …], ['cdr', …], ['users', …].
 */
import { useQuery } from '@tanstack/react-query';
import { getAll, get, listPath, type Page } from './client.ts';
import { useUser } from './session.tsx';
import type { Named, SmsCampaign, User, VoiceCampaign } from './types.ts';

/** Every voice campaign the user sees (an admin: everyone's). */
export function useAllCampaigns() {
  return useQuery({ queryKey: ['campaigns', 'all'], queryFn: () => getAll<VoiceCampaign>(listPath('campaigns', { page_size: 1000 })) });
}

export function useAllSmsCampaigns() {
  return useQuery({ queryKey: ['sms-campaigns', 'all'], queryFn: () => getAll<SmsCampaign>(listPath('sms-campaigns', { page_size: 1000 })) });
}

/** The signed-in user's record (balance, rates). */
export function useMe() {
  const { username } = useUser();
  return useQuery({
    queryKey: ['users', 'me', username],
    queryFn: async () => (await getAll<User>(listPath('users', { page_size: 1000 }))).find((u) => u.username === username) ?? null,
  });
}

/** A resource's records as choices for a select (name and link), e.g. phonebooks for a campaign. */
export function useChoices(resource: string) {
  return useQuery({ queryKey: [resource, 'choices'], queryFn: () => getAll<Named>(listPath(resource, { page_size: 1000 })), staleTime: 60_000 });
}

/** How many CDRs of a campaign started in the last minute (its current pace). */
export function useCallsLastMinute(campaignId: number, enabled = true) {
  return useQuery({
    queryKey: ['cdr', 'last-minute', campaignId],
    queryFn: async () => {
      const since = new Date(Date.now() - 60_000).toISOString();
      const page = await get<Page<unknown>>(listPath('cdr', { campaign_id: campaignId, starting_date__gte: since, page_size: 1 }));
      return page.count;
    },
    enabled,
    // The minute slides even when no call ends: read again now and then.
    refetchInterval: 15_000,
  });
}
