/** A section's branches (where the call goes on each answer): the list with Remove, and the form to add one. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, listPath, post, recordPath } from '../../api/client.ts';
import { ErrorMessage, Field } from '../../components/ui.tsx';
import { keysHint, SectionType } from './section-types.ts';
import type { FlowSection, Section } from './types.ts';

/** "2. Thanks" for a section id, "Hang up" for null. */
export function targetName(sections: FlowSection[], id: number | null): string {
  if (id === null) return 'Hang up';
  const i = sections.findIndex((s) => s.id === id);
  return i < 0 ? `section ${id}` : `${i + 1}. ${sections[i].question}`;
}

export function Branches({ section, flowSection, sections }: { section: Section; flowSection: FlowSection | undefined; sections: FlowSection[] }) {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: ['survey-template'] }), client.invalidateQueries({ queryKey: ['branching-template'] })]);
  const [keys, setKeys] = useState('');
  const [goto, setGoto] = useState('');
  const add = useMutation({
    mutationFn: () => post(listPath('branching-template'), { section: section.url, keys, goto: goto === '' ? null : recordPath('section-template', goto) }),
    onSuccess: async () => {
      setKeys('');
      setGoto('');
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: number) => del(recordPath('branching-template', id)), onSuccess: refresh });
  const errors = add.error instanceof ApiError ? add.error.fields : {};
  const branches = flowSection?.branches ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <section className="branches" aria-labelledby="branches-title">
      <h3 id="branches-title">Branches</h3>
      {branches.length === 0 ? (
        section.type !== SectionType.HangUp && <p className="muted">No branch: after this section the call goes on to the next section by play order (or ends after the last one).</p>
      ) : (
        <ul className="branch-list">
          {branches.map((b) => (
            <li key={b.id}>
              <span>
                <strong>{b.keys}</strong> → {targetName(sections, b.goto)}
              </span>
              <button type="button" onClick={() => remove.mutate(b.id)} disabled={remove.isPending} aria-label={`Remove the branch ${b.keys} → ${targetName(sections, b.goto)}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={remove.error} />
      {section.type === SectionType.HangUp ? (
        <p className="muted">A hang-up section ends the call: no branch of it is ever followed.</p>
      ) : (
        <form className="branch-form" onSubmit={submit} noValidate aria-label="Add a branch">
          <Field label="Answer (keys)" hint={keysHint(section)} errors={errors.keys}>
            {(p) => <input {...p} name="keys" value={keys} onChange={(e) => setKeys(e.target.value)} />}
          </Field>
          <Field label="Go to" errors={errors.goto}>
            {(p) => (
              <select {...p} name="goto" value={goto} onChange={(e) => setGoto(e.target.value)}>
                <option value="">Hang up</option>
                {sections.map((s, i) => (
                  <option key={s.id} value={String(s.id)}>
                    {i + 1}. {s.question}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add branch'}
          </button>
          {add.error && !errors.keys && !errors.goto && <ErrorMessage error={add.error} />}
        </form>
      )}
    </section>
  );
}
