/** The user's surveys a page at a time: create one by name, rename, delete (with the API's answer when it refuses). */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError, del, listPath, patch, post, recordPath } from '../../api/client.ts';
import { ActionsHead, PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Field, Time } from '../../components/ui.tsx';
import type { Survey } from './types.ts';

function NewSurvey() {
  const [name, setName] = useState('');
  const client = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => post<Survey>(listPath('survey-template'), { name }),
    onSuccess: async (survey) => {
      await client.invalidateQueries({ queryKey: ['survey-template'] });
      void navigate(`/surveys/${survey.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const errors = create.error instanceof ApiError ? create.error.fields : {};
  return (
    <form className="inline-form" onSubmit={submit} noValidate aria-label="New survey">
      <Field label="New survey's name" errors={errors.name}>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create survey'}
      </button>
      {create.error && !errors.name && <ErrorMessage error={create.error} />}
    </form>
  );
}

function SurveyRow({ survey }: { survey: Survey }) {
  const client = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(survey.name);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const rename = useMutation({
    mutationFn: () => patch(recordPath('survey-template', survey.id), { name }),
    onSuccess: async () => {
      setRenaming(false);
      await client.invalidateQueries({ queryKey: ['survey-template'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => del(recordPath('survey-template', survey.id)),
    onSuccess: () => client.invalidateQueries({ queryKey: ['survey-template'] }),
  });
  const nameErrors = rename.error instanceof ApiError ? rename.error.fields.name : undefined;
  return (
    <tr>
      <td>
        {renaming ? (
          <form
            className="inline-form"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate();
            }}
          >
            <Field label={`New name for ${survey.name}`} errors={nameErrors}>
              {(p) => <input {...p} name="name" value={name} autoFocus onChange={(e) => setName(e.target.value)} />}
            </Field>
            <button type="submit" className="primary" disabled={rename.isPending}>
              Save
            </button>
            <button type="button" onClick={() => (setRenaming(false), setName(survey.name), rename.reset())}>
              Cancel
            </button>
            {rename.error && !nameErrors && <ErrorMessage error={rename.error} />}
          </form>
        ) : (
          <Link to={`/surveys/${survey.id}`}>{survey.name}</Link>
        )}
      </td>
      <td>
        <Time value={survey.created_date} />
      </td>
      <td>
        <div className="row-actions">
          {!renaming && (
            <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${survey.name}`}>
              Rename
            </button>
          )}
          <button type="button" className="danger" onClick={() => setConfirmDelete(true)} aria-label={`Delete ${survey.name}`}>
            Delete…
          </button>
          {remove.error && <ErrorMessage error={remove.error} />}
          <ConfirmDialog
            open={confirmDelete}
            title={`Delete ${survey.name}?`}
            confirmLabel="Delete the survey"
            onCancel={() => setConfirmDelete(false)}
            onConfirm={() => {
              setConfirmDelete(false);
              remove.mutate();
            }}
          >
            <p>Its sections and branches are deleted with it. Campaigns already started keep the copy they froze at their start; a campaign not started yet loses its survey.</p>
          </ConfirmDialog>
        </div>
      </td>
    </tr>
  );
}

export function SurveyList() {
  const list = useUrlPagedList<Survey>('survey-template');
  return (
    <>
      <div className="page-head">
        <h1>Surveys</h1>
      </div>
      <NewSurvey />
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No survey yet">
            <p>
              A survey is what a campaign plays to the people it calls: messages, questions whose answers pick the next section, transfers. Name your first
              one above, then add its sections in the editor.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Surveys, page ${list.page}`}
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <ActionsHead />
              </>
            }
          >
            {rows.map((s) => (
              <SurveyRow key={s.id} survey={s} />
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
