/** DNC records as the API answers them (src/resources/dnc-list, dnc-contact). */
import { get, listPath, type Page } from '../../api/client.ts';
import { useQuery } from '@tanstack/react-query';

export interface DncList {
  id: number;
  /** /rest-api/dnc/<id>/ (contract §1) */
  url: string;
  name: string;
  user: string;
  /** Applies to every campaign of its owner (an admin's: of everyone). */
  is_global: boolean;
  created_date: string;
  updated_date: string;
}

export interface DncNumber {
  id: number;
  url: string;
  dnc: string;
  phone_number: string;
  created_date: string;
  updated_date: string;
}

/** How many numbers a list holds (the list record has no count; the dnc-contact list's `count` has). */
export function useNumberCount(dncId: number) {
  return useQuery({
    queryKey: ['dnc-contact', 'count', dncId],
    queryFn: async () => (await get<Page<unknown>>(listPath('dnc-contact', { dnc_id: dncId, page_size: 1 }))).count,
  });
}
