/** Create or edit a voice campaign: every field, grouped; the API's messages beside each field. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError, idOf, listPath, patch, post, recordPath } from '../../api/client.ts';
import { useChoices } from '../../api/queries.ts';
import type { VoiceCampaign } from '../../api/types.ts';
import { ErrorMessage, Field } from '../../components/ui.tsx';
import { GROUPS, initialValues, requestBody, WEEKDAYS, type FormField, type FormValues } from './fields.ts';

type Props = { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean };

function LinkSelect({ field, value, onChange, props }: { field: FormField; value: string; onChange: (v: string) => void; props: Props }) {
  const kind = field.kind as Extract<FormField['kind'], { type: 'link' }>;
  const choices = useChoices(kind.resource);
  const valueOf = (url: string) => (kind.asId ? String(idOf(url)) : url);
  return (
    <select {...props} name={field.name} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{kind.optional ? 'None' : choices.isPending ? 'Loading…' : 'Choose…'}</option>
      {(choices.data ?? []).map((c) => (
        <option key={c.url} value={valueOf(c.url)}>
          {c.name}
        </option>
      ))}
    </select>
  );
}

function LinkChecklist({ field, value, onChange, errors }: { field: FormField; value: string[]; onChange: (v: string[]) => void; errors?: string[] }) {
  const kind = field.kind as Extract<FormField['kind'], { type: 'links' }>;
  const choices = useChoices(kind.resource);
  return (
    <fieldset className={`checklist${errors?.length ? ' field-invalid' : ''}`}>
      <legend>{field.label}</legend>
      {field.hint && <small className="hint">{field.hint}</small>}
      {choices.data?.length === 0 && <p className="muted">None yet: create one first.</p>}
      {(choices.data ?? []).map((c) => (
        <label key={c.url} className="check">
          <input
            type="checkbox"
            name={field.name}
            checked={value.includes(c.url)}
            onChange={(e) => onChange(e.target.checked ? [...value, c.url] : value.filter((v) => v !== c.url))}
          />
          {c.name}
        </label>
      ))}
      {errors?.length ? <p className="field-error">{errors.join(' ')}</p> : null}
    </fieldset>
  );
}

function Input({ field, values, set, errors }: { field: FormField; values: FormValues; set: (name: string, v: FormValues[string]) => void; errors?: string[] }) {
  const k = field.kind;
  const value = values[field.name];
  if (k.type === 'links') return <LinkChecklist field={field} value={value as string[]} onChange={(v) => set(field.name, v)} errors={errors} />;
  if (k.type === 'checkbox') {
    return (
      <div className={`field check${errors?.length ? ' field-invalid' : ''}`}>
        <label>
          <input type="checkbox" name={field.name} checked={value as boolean} onChange={(e) => set(field.name, e.target.checked)} /> {field.label}
        </label>
        {field.hint && <small className="hint">{field.hint}</small>}
        {errors?.length ? <p className="field-error">{errors.join(' ')}</p> : null}
      </div>
    );
  }
  return (
    <Field label={field.label} hint={field.hint} errors={errors}>
      {(p) => {
        const common = { ...p, name: field.name, value: value as string, onChange: (e: { target: { value: string } }) => set(field.name, e.target.value) };
        switch (k.type) {
          case 'text':
            return k.multiline ? <textarea {...common} rows={2} /> : <input {...common} type="text" />;
          case 'number':
            return <input {...common} type="number" inputMode="decimal" min={k.min} step={k.step ?? '1'} />;
          case 'datetime':
            return <input {...common} type="datetime-local" />;
          case 'time':
            return <input {...common} type="time" step={1} />;
          case 'select':
            return (
              <select {...common}>
                {k.options.map(([v, label]) => (
                  <option key={v} value={v}>
                    {label}
                  </option>
                ))}
              </select>
            );
          case 'link':
            return <LinkSelect field={field} value={value as string} onChange={(v) => set(field.name, v)} props={p} />;
        }
      }}
    </Field>
  );
}

const isWeekday = (f: FormField) => (WEEKDAYS as readonly string[]).includes(f.name);

/** The seven calling days as one row of checkboxes. */
function Weekdays({ fields, values, set, errors }: { fields: FormField[]; values: FormValues; set: (name: string, v: boolean) => void; errors: Record<string, string[]> }) {
  const messages = fields.flatMap((f) => errors[f.name] ?? []);
  return (
    <fieldset className={`checklist${messages.length ? ' field-invalid' : ''}`}>
      <legend>Calling days</legend>
      {fields.map((f) => (
        <label key={f.name} className="check">
          <input type="checkbox" name={f.name} checked={values[f.name] as boolean} onChange={(e) => set(f.name, e.target.checked)} />
          {f.label}
        </label>
      ))}
      {messages.length ? <p className="field-error">{messages.join(' ')}</p> : null}
    </fieldset>
  );
}

export function CampaignForm({ campaign }: { campaign?: VoiceCampaign }) {
  const isNew = !campaign;
  const [initial] = useState(() => initialValues(campaign));
  const [values, setValues] = useState(initial);
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
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
  // A field's message stays until that field is edited (then it is stale) or the form is sent again.
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const apiErrors = save.error instanceof ApiError ? save.error.fields : {};
  const errors = Object.fromEntries(Object.entries(apiErrors).filter(([k]) => !edited.has(k)));
  const known = new Set(GROUPS.flatMap((g) => g.fields.map((f) => f.name)));
  const other = Object.entries(apiErrors).filter(([k]) => !known.has(k as FormField['name']));
  const set = (name: string, v: FormValues[string]) => {
    setValues((old) => ({ ...old, [name]: v }));
    setEdited((old) => new Set(old).add(name));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setEdited(new Set());
    save.mutate();
  };

  return (
    <form className="campaign-form" onSubmit={submit} noValidate>
      <h1>{isNew ? 'New campaign' : `Edit ${campaign.name}`}</h1>
      {save.error && (
        <div role="alert" className="error-banner">
          {save.error instanceof ApiError && Object.keys(save.error.fields).length
            ? 'The campaign was not saved: see the messages beside the fields.'
            : null}
          {save.error instanceof ApiError && save.error.detail ? ` ${save.error.detail}` : null}
          {other.map(([k, m]) => (
            <div key={k}>
              {k}: {m.join(' ')}
            </div>
          ))}
          {!(save.error instanceof ApiError) && <ErrorMessage error={save.error} />}
        </div>
      )}
      {GROUPS.map((g) => (
        <fieldset key={g.title} className="group">
          <legend>{g.title}</legend>
          <div className="group-fields">
            {g.fields.map((f) =>
              isWeekday(f) ? (
                f.name === WEEKDAYS[0] && <Weekdays key="days" fields={g.fields.filter(isWeekday)} values={values} set={set} errors={errors} />
              ) : (
                <Input key={f.name} field={f} values={values} set={set} errors={errors[f.name]} />
              ),
            )}
          </div>
        </fieldset>
      ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : isNew ? 'Create campaign' : 'Save changes'}
        </button>
        <Link to={isNew ? '/campaigns' : `/campaigns/${campaign.id}`}>Cancel</Link>
      </div>
    </form>
  );
}
