/**
 * One section's form, new or existing: the fields every section has (type, question, script,
 * audio, completed, order) and those its type runs with (section-types.ts). The API's messages
 * are shown beside their fields; a message for a field the form does not show goes on top.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, listPath, patch, post, recordPath } from '../../api/client.ts';
import { useChoices } from '../../api/queries.ts';
import { ErrorMessage, Field } from '../../components/ui.tsx';
import { KEY_NAMES, SECTION_TYPES, type TypeField } from './section-types.ts';
import type { Section } from './types.ts';

type Values = Record<string, string | boolean>;

const TEXTS = ['question', 'script', 'phonenumber', 'conference', 'sms_text', 'api_url', ...KEY_NAMES] as const;
const NUMBERS = ['order', 'retries', 'timeout', 'rating_laps', 'number_digits', 'min_number', 'max_number'] as const;
const LINKS = ['audiofile', 'invalid_audiofile', 'queue'] as const;

function initialValues(section: Section | undefined): Values {
  const v: Values = { type: String(section?.type ?? 1), completed: section?.completed ?? false, validate_number: section?.validate_number ?? true };
  for (const k of TEXTS) v[k] = section?.[k] ?? '';
  if (section && section.script === section.question) v.script = ''; // the default: said as the question
  const defaults: Record<string, number | null> = { order: null, retries: null, timeout: 5, rating_laps: 9, number_digits: 2, min_number: 0, max_number: 99 };
  for (const k of NUMBERS) v[k] = String(section ? (section[k] ?? '') : (defaults[k] ?? ''));
  for (const k of LINKS) v[k] = section?.[k] ?? '';
  v.callback_minutes = String(section?.callback_minutes ?? '');
  return v;
}

/** The request: the common fields and the type's own; "" numbers are left out (retries and callback_minutes: null = none). */
function requestBody(v: Values, surveyUrl: string, isNew: boolean): Record<string, unknown> {
  const type = Number(v.type);
  const own = new Set<string>(SECTION_TYPES[type]?.fields ?? []);
  if (own.has('keys')) KEY_NAMES.forEach((k) => own.add(k));
  const body: Record<string, unknown> = { type, question: v.question, script: v.script || null, audiofile: v.audiofile || null, completed: v.completed };
  if (isNew) body.survey = surveyUrl;
  if (v.order !== '') body.order = Number(v.order);
  // Any type may ask for a callback; sent only when set or cleared, so a section that never had one is written as before.
  if (v.callback_minutes !== '') body.callback_minutes = Number(v.callback_minutes);
  else if (!isNew) body.callback_minutes = null;
  for (const k of TEXTS) if (own.has(k)) body[k] = v[k];
  for (const k of NUMBERS) {
    if (!own.has(k)) continue;
    if (v[k] === '') {
      if (k === 'retries') body[k] = null;
    } else body[k] = Number(v[k]);
  }
  if (own.has('validate_number')) body.validate_number = v.validate_number;
  for (const k of ['invalid_audiofile', 'queue'] as const) if (own.has(k)) body[k] = v[k] || null;
  return body;
}

const LABELS: Record<string, string> = {
  retries: 'Retries (asked again after a wrong or missing answer)',
  rating_laps: 'Highest rating',
  number_digits: 'Most digits',
  min_number: 'Smallest valid number',
  max_number: 'Largest valid number',
  phonenumber: 'Phone number to transfer to',
  conference: 'Conference room',
  sms_text: 'Text of the SMS',
  api_url: 'URL to call (http or https)',
};

function LinkSelect({ resource, none, value, onChange, props }: { resource: string; none: string; value: string; onChange: (v: string) => void; props: object }) {
  const choices = useChoices(resource);
  return (
    <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{choices.isPending ? 'Loading…' : none}</option>
      {(choices.data ?? []).map((c) => (
        <option key={c.url} value={c.url}>
          {c.name}
        </option>
      ))}
    </select>
  );
}

export function SectionForm({ section, surveyUrl, onSaved }: { section?: Section; surveyUrl: string; onSaved: (id: number) => void }) {
  const isNew = !section;
  const [values, setValues] = useState(() => initialValues(section));
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      const body = requestBody(values, surveyUrl, isNew);
      if (isNew) return (await post<Section>(listPath('section-template'), body)).id;
      await patch(recordPath('section-template', section.id), body);
      return section.id;
    },
    onSuccess: async (id) => {
      await Promise.all([client.invalidateQueries({ queryKey: ['section-template'] }), client.invalidateQueries({ queryKey: ['survey-template'] })]);
      setEdited(new Set());
      onSaved(id);
    },
  });
  const apiErrors = save.error instanceof ApiError ? save.error.fields : {};
  const errors = Object.fromEntries(Object.entries(apiErrors).filter(([k]) => !edited.has(k)));
  const set = (name: string, v: string | boolean) => {
    setValues((old) => ({ ...old, [name]: v }));
    setEdited((old) => new Set(old).add(name));
  };
  const type = Number(values.type);
  const info = SECTION_TYPES[type];
  const has = (f: TypeField) => info?.fields.includes(f) ?? false;
  const shown = new Set<string>(['type', 'question', 'script', 'audiofile', 'completed', 'callback_minutes', 'order', ...(info?.fields ?? [])]);
  if (has('keys')) KEY_NAMES.forEach((k) => shown.add(k));
  const other = Object.entries(apiErrors).filter(([k]) => !shown.has(k));

  const text = (name: string, label: string, hint?: string, multiline = false) => (
    <Field label={label} hint={hint} errors={errors[name]}>
      {(p) =>
        multiline ? (
          <textarea {...p} name={name} rows={3} value={values[name] as string} onChange={(e) => set(name, e.target.value)} />
        ) : (
          <input {...p} name={name} type="text" value={values[name] as string} onChange={(e) => set(name, e.target.value)} />
        )
      }
    </Field>
  );
  const number = (name: string, label: string, hint?: string) => (
    <Field label={label} hint={hint} errors={errors[name]}>
      {(p) => <input {...p} name={name} type="number" inputMode="numeric" step="1" value={values[name] as string} onChange={(e) => set(name, e.target.value)} />}
    </Field>
  );
  const check = (name: string, label: string, hint?: string) => (
    <div className={`field check${errors[name]?.length ? ' field-invalid' : ''}`}>
      <label>
        <input type="checkbox" name={name} checked={values[name] as boolean} onChange={(e) => set(name, e.target.checked)} /> {label}
      </label>
      {hint && <small className="hint">{hint}</small>}
      {errors[name]?.length ? <p className="field-error">{errors[name].join(' ')}</p> : null}
    </div>
  );
  const link = (name: string, label: string, resource: string, none: string, hint?: string) => (
    <Field label={label} hint={hint} errors={errors[name]}>
      {(p) => <LinkSelect resource={resource} none={none} value={values[name] as string} onChange={(v) => set(name, v)} props={{ ...p, name }} />}
    </Field>
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setEdited(new Set());
    save.mutate();
  };

  return (
    <form className="section-form" onSubmit={submit} noValidate aria-label={isNew ? 'New section' : `Section ${section.question}`}>
      {save.error && (
        <div role="alert" className="error-banner">
          {save.error instanceof ApiError && Object.keys(save.error.fields).length ? 'The section was not saved: see the messages beside the fields.' : null}
          {save.error instanceof ApiError && save.error.detail ? ` ${save.error.detail}` : null}
          {other.map(([k, m]) => (
            <div key={k}>
              {k}: {m.join(' ')}
            </div>
          ))}
          {!(save.error instanceof ApiError) && <ErrorMessage error={save.error} />}
        </div>
      )}
      <Field label="Type" hint={info?.does} errors={errors.type}>
        {(p) => (
          <select {...p} name="type" value={values.type as string} onChange={(e) => set('type', e.target.value)}>
            {Object.entries(SECTION_TYPES).map(([n, t]) => (
              <option key={n} value={n}>
                {n}. {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {text('question', 'Question (the section’s name)', 'Shown in the editor and in the results; said when there is no script or audio.')}
      {text('script', 'Script (said by text to speech)', 'Left empty: the question is said. An audio file, when chosen, is played instead.', true)}
      {link('audiofile', 'Audio file', 'audio-files', 'None (say the script)')}
      {has('keys') && (
        <fieldset className="keys">
          <legend>Answers (key → what it means)</legend>
          <small className="hint">Name the keys the caller may press; each named key needs a branch (or an "any" branch).</small>
          <div className="keys-grid">
            {KEY_NAMES.map((k, digit) => (
              <Field key={k} label={`Key ${digit}`} errors={errors[k]}>
                {(p) => <input {...p} name={k} type="text" value={values[k] as string} onChange={(e) => set(k, e.target.value)} />}
              </Field>
            ))}
          </div>
        </fieldset>
      )}
      {has('rating_laps') && number('rating_laps', LABELS.rating_laps, 'The caller presses 1 to this number.')}
      {has('number_digits') && number('number_digits', LABELS.number_digits)}
      {has('validate_number') && check('validate_number', 'Only accept numbers in the range below')}
      {has('min_number') && number('min_number', LABELS.min_number)}
      {has('max_number') && number('max_number', LABELS.max_number)}
      {has('phonenumber') && text('phonenumber', LABELS.phonenumber)}
      {has('conference') && text('conference', LABELS.conference)}
      {has('queue') && link('queue', 'Queue', 'queue', 'Choose…', 'Queues are made with `campaign-dialer queue create`.')}
      {has('sms_text') && text('sms_text', LABELS.sms_text, "Sent through the campaign's SMS gateway.", true)}
      {has('api_url') && text('api_url', LABELS.api_url, "GET with the call's variables.")}
      {has('timeout') && number('timeout', info?.timeoutLabel ?? 'Timeout, seconds')}
      {has('retries') && number('retries', LABELS.retries, 'Empty: asked once.')}
      {has('invalid_audiofile') && link('invalid_audiofile', 'Audio after a wrong answer', 'audio-files', 'None')}
      {check('completed', 'Reaching this section completes the subscriber', 'The subscriber ends COMPLETED (8) instead of SENT.')}
      {number('callback_minutes', 'Call back after (minutes)', 'A call that passes through this section asks to be called again this long after it ends. Empty: no callback.')}
      {number('order', 'Play order', isNew ? 'Empty: after the last section.' : 'Sections play by this number, lowest first; branches jump elsewhere.')}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : isNew ? 'Add section' : 'Save section'}
        </button>
      </div>
    </form>
  );
}
