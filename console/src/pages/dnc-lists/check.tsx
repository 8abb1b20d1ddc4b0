/**
 * "Is this number blocked, and by which list?": the numbers of the lists the user can see that
 * match it (`dnc-contact?phone_number=`, matched by digits, as the dialer matches), with their
 * lists. What it cannot see it says: an admin's global lists bar everyone's campaigns, but an
 * ordinary user cannot read them.
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { getAll, idOf, listPath } from '../../api/client.ts';
import { useUser } from '../../api/session.tsx';
import { ErrorMessage, Field, Loading } from '../../components/ui.tsx';
import type { DncList, DncNumber } from './types.ts';

const digits = (s: string) => s.replace(/\D/g, '');

async function listsHolding(number: string): Promise<DncList[]> {
  const hits = await getAll<DncNumber>(listPath('dnc-contact', { phone_number: number, page_size: 1000 }));
  const lists = await getAll<DncList>(listPath('dnc-list', { page_size: 1000 }));
  const ids = new Set(hits.map((h) => idOf(h.dnc)));
  return lists.filter((l) => ids.has(l.id));
}

export function BlockedCheck() {
  const { is_admin } = useUser();
  const [draft, setDraft] = useState('');
  const [number, setNumber] = useState('');
  const data = useQuery({ queryKey: ['dnc-contact', 'check', number], queryFn: () => listsHolding(number), enabled: Boolean(digits(number)) });
  const wanted = digits(number);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setNumber(draft.trim());
  };

  let answer = null;
  if (number && !wanted) answer = <p className="check-result">“{number}” holds no digit: enter a phone number.</p>;
  else if (number && data.data) {
    const lists = data.data;
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
