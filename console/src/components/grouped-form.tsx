/**
 * A record's form made from a description of its fields in groups (the voice and the SMS
 * campaign forms): every input labelled, the API's message beside the field it
 * names (hidden once that field is edited), messages for unknown fields in the banner.
 * Values are strings, booleans or lists of links.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, idOf } from '../api/client.ts';
import { useChoices } from '../api/queries.ts';
import { fromLocalInput, toLocalInput } from '../format.ts';
import { RetryRulesInput, rulesText } from './retry-rules.tsx';
import { CheckboxGroup, ErrorMessage, Field } from './ui.tsx';

export type FieldKind =
  | { type: 'text'; multiline?: boolean; rows?: number }
  | { type: 'number'; min?: number; max?: number; step?: string }
  | { type: 'checkbox' }
  | { type: 'datetime' }
  | { type: 'time' }
  | { type: 'select'; options: [string, string][] }
  | { type: 'link'; resource: string; optional?: boolean; asId?: boolean }
  | { type: 'links'; resource: string }
  /** A voice campaign's retry_rules: retries and a wait for each cause, held as their JSON (retry-rules.tsx). */
  | { type: 'retry-rules' };

export interface FormField {
  name: string;
  label: string;
  hint?: string;
  kind: FieldKind;
}
export interface FormGroup {
  title: string;
  fields: FormField[];
}
export type FormValues = Record<string, string | boolean | string[]>;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** The seven weekday checkboxes (they are shown as one row). */
export const weekdayFields = (): FormField[] => WEEKDAYS.map((d) => ({ name: d, label: d.charAt(0).toUpperCase() + d.slice(1, 3), kind: { type: 'checkbox' } }));
const isWeekday = (f: FormField) => (WEEKDAYS as readonly string[]).includes(f.name);

/** Form values from a record (or `defaults` for a new one). */
export function valuesOf(groups: FormGroup[], record: Record<string, unknown> | undefined, defaults: FormValues): FormValues {
  const v: FormValues = {};
  for (const f of groups.flatMap((g) => g.fields)) {
    const raw = record?.[f.name];
    switch (f.kind.type) {
      case 'checkbox':
        v[f.name] = record ? Boolean(raw) : isWeekday(f);
        break;
      case 'links':
        v[f.name] = record ? [...((raw as string[] | undefined) ?? [])] : [];
        break;
      case 'datetime':
        v[f.name] = toLocalInput(raw as string | null);
        break;
      case 'retry-rules':
        v[f.name] = rulesText(raw);
        break;
      default:
        v[f.name] = raw == null ? '' : String(raw);
    }
  }
  return record ? v : { ...v, ...defaults };
}

/** The request body: every field for a new record, only the changed ones for an update. */
export function bodyOf(groups: FormGroup[], values: FormValues, initial: FormValues, isNew: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of groups.flatMap((g) => g.fields)) {
    const value = values[f.name];
    if (!isNew && JSON.stringify(value) === JSON.stringify(initial[f.name])) continue;
    switch (f.kind.type) {
      case 'datetime': {
        const iso = fromLocalInput(value as string);
        if (iso) body[f.name] = iso;
        else if (!isNew) body[f.name] = null;
        break;
      }
      case 'time':
        if (value) body[f.name] = /^\d\d:\d\d$/.test(value as string) ? `${value}:00` : value;
        break;
      case 'link':
        if (value !== '' || !isNew) body[f.name] = value === '' ? (f.kind.optional ? '' : null) : value;
        break;
      case 'number':
      case 'select':
        if (value !== '') body[f.name] = value;
        break;
      case 'retry-rules':
        body[f.name] = value === '' ? null : JSON.parse(value as string);
        break;
      default:
        body[f.name] = value;
    }
  }
  return body;
}

type Props = { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean };

function LinkSelect({ field, value, onChange, props }: { field: FormField; value: string; onChange: (v: string) => void; props: Props }) {
  const kind = field.kind as Extract<FieldKind, { type: 'link' }>;
  const choices = useChoices(kind.resource);
  return (
    <select {...props} name={field.name} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{kind.optional ? 'None' : choices.isPending ? 'Loading…' : 'Choose…'}</option>
      {(choices.data ?? []).map((c) => (
        <option key={c.url} value={kind.asId ? String(idOf(c.url)) : c.url}>
          {c.name}
        </option>
      ))}
    </select>
  );
}

function Checklist({ field, value, onChange, errors }: { field: FormField; value: string[]; onChange: (v: string[]) => void; errors?: string[] }) {
  const kind = field.kind as Extract<FieldKind, { type: 'links' }>;
  const choices = useChoices(kind.resource);
  return (
    <CheckboxGroup
      legend={field.label}
      hint={field.hint}
      name={field.name}
      options={(choices.data ?? []).map((c) => [c.url, c.name] as const)}
      chosen={value}
      onChange={onChange}
      errors={errors}
    >
      {choices.data?.length === 0 && <p className="muted">None yet: create one first.</p>}
    </CheckboxGroup>
  );
}

function Input({ field, value, set, errors }: { field: FormField; value: FormValues[string]; set: (v: FormValues[string]) => void; errors?: string[] }) {
  const k = field.kind;
  if (k.type === 'links') return <Checklist field={field} value={value as string[]} onChange={set} errors={errors} />;
  if (k.type === 'retry-rules') return <RetryRulesInput label={field.label} hint={field.hint} value={value as string} onChange={set} errors={errors} />;
  if (k.type === 'checkbox') {
    return (
      <div className={`field check${errors?.length ? ' field-invalid' : ''}`}>
        <label>
          <input type="checkbox" name={field.name} checked={value as boolean} onChange={(e) => set(e.target.checked)} /> {field.label}
        </label>
        {field.hint && <small className="hint">{field.hint}</small>}
        {errors?.length ? <p className="field-error">{errors.join(' ')}</p> : null}
      </div>
    );
  }
  return (
    <Field label={field.label} hint={field.hint} errors={errors}>
      {(p) => {
        const common = { ...p, name: field.name, value: value as string, onChange: (e: { target: { value: string } }) => set(e.target.value) };
        switch (k.type) {
          case 'text':
            return k.multiline ? <textarea {...common} rows={k.rows ?? 2} /> : <input {...common} type="text" />;
          case 'number':
            return <input {...common} type="number" inputMode="decimal" min={k.min} max={k.max} step={k.step ?? '1'} />;
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
            return <LinkSelect field={field} value={value as string} onChange={set} props={p} />;
        }
      }}
    </Field>
  );
}

function Weekdays({
  legend,
  fields,
  values,
  set,
  errors,
}: {
  legend: string;
  fields: FormField[];
  values: FormValues;
  set: (name: string, v: boolean) => void;
  errors: Record<string, string[]>;
}) {
  const messages = fields.flatMap((f) => errors[f.name] ?? []);
  return (
    <fieldset className={`checklist${messages.length ? ' field-invalid' : ''}`}>
      <legend>{legend}</legend>
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

/**
 * The form: `values` is owned here, `onSubmit` gets them; `error` is the save's error (its
 * field messages go beside the fields). `title`, `noun` ("campaign") and `actions` frame it;
 * `daysLegend` names the row of weekday checkboxes.
 */
export function GroupedForm({
  title,
  noun,
  daysLegend = 'Sending days',
  groups,
  initial,
  error,
  onSubmit,
  actions,
}: {
  title: string;
  noun: string;
  daysLegend?: string;
  groups: FormGroup[];
  initial: FormValues;
  error: unknown;
  onSubmit: (values: FormValues) => void;
  actions: ReactNode;
}) {
  const [values, setValues] = useState(initial);
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const apiErrors = error instanceof ApiError ? error.fields : {};
  const errors = Object.fromEntries(Object.entries(apiErrors).filter(([k]) => !edited.has(k)));
  const known = new Set(groups.flatMap((g) => g.fields.map((f) => f.name)));
  const other = Object.entries(apiErrors).filter(([k]) => !known.has(k));
  const set = (name: string, v: FormValues[string]) => {
    setValues((old) => ({ ...old, [name]: v }));
    setEdited((old) => new Set(old).add(name));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setEdited(new Set());
    onSubmit(values);
  };
  return (
    <form className="campaign-form" onSubmit={submit} noValidate>
      <h1>{title}</h1>
      {error ? (
        <div role="alert" className="error-banner">
          {error instanceof ApiError && Object.keys(error.fields).length ? `The ${noun} was not saved: see the messages beside the fields.` : null}
          {error instanceof ApiError && error.detail ? ` ${error.detail}` : null}
          {other.map(([k, m]) => (
            <div key={k}>
              {k}: {m.join(' ')}
            </div>
          ))}
          {!(error instanceof ApiError) && <ErrorMessage error={error} />}
        </div>
      ) : null}
      {groups.map((g) => (
        <fieldset key={g.title} className="group">
          <legend>{g.title}</legend>
          <div className="group-fields">
            {g.fields.map((f) =>
              isWeekday(f) ? (
                f.name === WEEKDAYS[0] && <Weekdays key="days" legend={daysLegend} fields={g.fields.filter(isWeekday)} values={values} set={set} errors={errors} />
              ) : (
                <Input key={f.name} field={f} value={values[f.name] ?? ''} set={(v) => set(f.name, v)} errors={errors[f.name]} />
              ),
            )}
          </div>
        </fieldset>
      ))}
      <div className="actions">{actions}</div>
    </form>
  );
}
