/**
 * "Is this number blocked, and by which list?"
 *
 * The API has no call that answers it: dnc-contact filters by list (`dnc_id`) only, not by
 * number. So the console reads every number of the lists the user can see (up to CHECK_MAX)
 * and compares digits, which is the dialer's own rule (src/campaign/dnc.ts: numbers match by
 * digits only). What it cannot see it says: an admin's global lists bar everyone's campaigns,
 * but an ordinary user cannot read them.
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get, getAll, idOf, listPath, type Page } from '../../api/client.ts';
import { useUser } from '../../api/session.tsx';
import { ErrorMessage, Field, Loading } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import type { DncList, DncNumber } from './types.ts';

const CHECK_MAX = 50_000;
const digits = (s: string) => s.replace(/\D/g, '');

async function readAll(): Promise<{ numbers: DncNumber[]; lists: DncList[]; tooMany: number | undefined }> {
  const first = await get<Page<DncNumber>>(listPath('dnc-contact', { page_size: 1000 }));
  const lists = await getAll<DncList>(listPath('dnc-list', { page_size: 1000 }));
  if (first.count > CHECK_MAX) return { numbers: [], lists, tooMany: first.count };
  const numbers = [...first.results];
  let next = first.next;
  while (next) {
    const page: Page<DncNumber> = await get<Page<DncNumber>>(next);
    numbers.push(...page.results);
    next = page.next;
  }
  return { numbers, lists, tooMany: undefined };
}

export function BlockedCheck() {
  const { is_admin } = useUser();
  const [draft, setDraft] = useState('');
  const [number, setNumber] = useState('');
  const data = useQuery({ queryKey: ['dnc-contact', 'check', number], queryFn: readAll, enabled: Boolean(number) });
  const wanted = digits(number);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setNumber(draft.trim());
  };

  let answer = null;
  if (number && !wanted) answer = <p className="check-result">“{number}” holds no digit: enter a phone number.</p>;
  else if (number && data.data?.tooMany) {
    answer = (
      <p role="status">
        Your lists hold {formatInteger(data.data.tooMany)} numbers, more than the {formatInteger(CHECK_MAX)} the console reads: the API has no
        filter by number, so this cannot be answered here.
      </p>
    );
  } else if (number && data.data) {
    const byId = new Map(data.data.lists.map((l) => [l.id, l]));
    const hits = data.data.numbers.filter((n) => digits(n.phone_number) === wanted);
    const lists = [...new Set(hits.map((h) => idOf(h.dnc)))].map((id) => byId.get(id as number)).filter((l): l is DncList => Boolean(l));
    answer =
      lists.length > 0 ? (
        <div role="status">
          {lists.map((l) => (
            <p key={l.id} className="check-result hit">
              {number} is blocked by {l.name}
              {l.is_global ? ' (global: every campaign)' : ' (campaigns that use this list)'}
            </p>
          ))}
        </div>
      ) : (
        <p role="status" className="check-result clear">
          {number} is on none of {is_admin ? 'the' : 'your'} DNC lists.
          {is_admin ? '' : ' An administrator’s global lists, which you cannot see, may still block it.'}
        </p>
      );
  }

  return (
    <section className="check-box" aria-labelledby="check-title">
      <h2 id="check-title">Is this number blocked, and by which list?</h2>
      <form className="search-form" onSubmit={submit}>
        <Field label="Phone number to check" hint="Numbers match by their digits, as the dialer compares them.">
          {(p) => <input {...p} type="tel" name="check" value={draft} onChange={(e) => setDraft(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit">Check</button>
        </div>
      </form>
      <ErrorMessage error={data.error} />
      {number && wanted && data.isPending ? <Loading what="Checking…" /> : answer}
    </section>
  );
}
