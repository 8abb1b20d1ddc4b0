/** Usernames by user link, for the lists an admin sees with everyone's records. */
import { useQuery } from '@tanstack/react-query';
import { getAll, idOf, listPath } from '../../api/client.ts';
import type { User } from '../../api/types.ts';

export function useUsernames(enabled: boolean) {
  return useQuery({
    queryKey: ['users', 'names'],
    queryFn: async () => new Map((await getAll<User>(listPath('users', { page_size: 1000 }))).map((u) => [idOf(u.url), u.username])),
    enabled,
    staleTime: 60_000,
  });
}

export function ownerName(names: Map<number | undefined, string> | undefined, link: string): string {
  const id = idOf(link);
  return names?.get(id) ?? (id ? `User ${id}` : link);
}
