/**
 * The voice campaign form's fields, grouped as an operator thinks of them (who, what, when, pace,
 * retries, voicemail), with how each is read from a record and written back. The API checks
 * every value; its messages are shown next to the field they name.
 */
import type { VoiceCampaign } from '../../api/types.ts';
import { fromLocalInput, toLocalInput } from '../../format.ts';

export type FieldKind =
  | { type: 'text'; multiline?: boolean }
  | { type: 'number'; min?: number; step?: string }
  | { type: 'checkbox' }
  | { type: 'datetime' }
  | { type: 'time' }
  | { type: 'select'; options: [string, string][] }
  /** A link to another resource's record; `asId`: the API wants its id (object_id). */
  | { type: 'link'; resource: string; optional?: boolean; asId?: boolean }
  | { type: 'links'; resource: string };

export interface FormField {
  name: keyof VoiceCampaign & string;
  label: string;
  hint?: string;
  kind: FieldKind;
}

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export const GROUPS: { title: string; fields: FormField[] }[] = [
  {
    title: 'Who',
    fields: [
      { name: 'phonebook', label: 'Phonebooks', hint: 'Every active contact of these phonebooks is called.', kind: { type: 'links', resource: 'phonebook' } },
      { name: 'dnc', label: 'Do-not-call list', hint: 'Besides your lists marked global.', kind: { type: 'link', resource: 'dnc', optional: true } },
      { name: 'callerid', label: 'Caller id', hint: 'The number the called person sees.', kind: { type: 'text' } },
      { name: 'caller_name', label: 'Caller name', kind: { type: 'text' } },
      {
        name: 'callerid_group',
        label: 'Caller id group',
        hint: 'Instead of one caller id: the group’s number whose area code matches the called number best.',
        kind: { type: 'link', resource: 'callerid_group', optional: true },
      },
    ],
  },
  {
    title: 'What',
    fields: [
      { name: 'name', label: 'Name', kind: { type: 'text' } },
      { name: 'description', label: 'Description', kind: { type: 'text', multiline: true } },
      { name: 'object_id', label: 'Survey', hint: 'What the called person hears and answers.', kind: { type: 'link', resource: 'survey-template', asId: true } },
      { name: 'aleg_gateway', label: 'Gateway', hint: 'The carrier the calls go through.', kind: { type: 'link', resource: 'gateway' } },
      { name: 'sms_gateway', label: 'SMS gateway', hint: 'For survey sections that send an SMS.', kind: { type: 'link', resource: 'sms-gateway', optional: true } },
      { name: 'extra_data', label: 'Extra data', hint: 'Free text passed along with each call.', kind: { type: 'text' } },
    ],
  },
  {
    title: 'When',
    fields: [
      { name: 'startingdate', label: 'Starts', hint: 'In your browser’s time zone.', kind: { type: 'datetime' } },
      { name: 'expirationdate', label: 'Expires', hint: 'It ends by itself then.', kind: { type: 'datetime' } },
      { name: 'daily_start_time', label: 'Daily from', kind: { type: 'time' } },
      { name: 'daily_stop_time', label: 'Daily until', hint: 'A window may cross midnight.', kind: { type: 'time' } },
      ...WEEKDAYS.map((d): FormField => ({ name: d, label: d.charAt(0).toUpperCase() + d.slice(1, 3), kind: { type: 'checkbox' } })),
      {
        name: 'timezone_dialing',
        label: 'Read the hours in each contact’s own time zone',
        kind: { type: 'checkbox' },
      },
      { name: 'end_when_done', label: 'End when every contact is done', hint: 'Otherwise it waits for contacts added later.', kind: { type: 'checkbox' } },
    ],
  },
  {
    title: 'Pace',
    fields: [
      { name: 'frequency', label: 'Calls per minute', kind: { type: 'number', min: 1 } },
      {
        name: 'dial_method',
        label: 'Dial method',
        kind: {
          type: 'select',
          options: [
            ['1', 'Broadcast: paced by calls per minute'],
            ['2', 'Progressive: also at most “calls at once”'],
            ['3', 'Power: progressive, times the agent dial rate'],
          ],
        },
      },
      { name: 'max_aleg', label: 'Calls at once', hint: '0: no limit but the gateway’s.', kind: { type: 'number', min: 0 } },
      { name: 'agent_dial_rate', label: 'Agent dial rate', hint: 'Calls per line of “calls at once” (power dialing only).', kind: { type: 'number', min: 0, step: '0.01' } },
      { name: 'max_xfer', label: 'Transfers at once', kind: { type: 'number', min: 0 } },
      { name: 'calltimeout', label: 'Ring for (seconds)', kind: { type: 'number', min: 1 } },
      { name: 'callmaxduration', label: 'Longest call (seconds)', kind: { type: 'number', min: 1 } },
    ],
  },
  {
    title: 'Retries',
    fields: [
      { name: 'maxretry', label: 'Retries', hint: 'Further attempts after an unanswered call.', kind: { type: 'number', min: 0 } },
      { name: 'intervalretry', label: 'Wait between attempts (seconds)', kind: { type: 'number', min: 0 } },
      { name: 'completion_enabled', label: 'Completion enabled', hint: 'Call back answered subscribers who did not reach a completed section.', kind: { type: 'checkbox' } },
      { name: 'completion_maxretry', label: 'Completion callbacks', kind: { type: 'number', min: 0 } },
      { name: 'completion_intervalretry', label: 'Wait before a completion callback (seconds)', kind: { type: 'number', min: 0 } },
    ],
  },
  {
    title: 'Voicemail',
    fields: [
      { name: 'voicemail', label: 'Detect answering machines', kind: { type: 'checkbox' } },
      {
        name: 'amd_behavior',
        label: 'On a machine',
        kind: {
          type: 'select',
          options: [
            ['1', 'Survey to people, voicemail message to machines'],
            ['2', 'People only: hang up on machines'],
            ['3', 'Machines only: leave the message, hang up on people'],
          ],
        },
      },
      { name: 'voicemail_audiofile', label: 'Voicemail message', kind: { type: 'link', resource: 'audio-files', optional: true } },
    ],
  },
];

export type FormValues = Record<string, string | boolean | string[]>;

/** Form values for a new campaign (contract §5's defaults) or an existing one. */
export function initialValues(c?: VoiceCampaign): FormValues {
  const v: FormValues = {};
  for (const { fields } of GROUPS) {
    for (const f of fields) {
      const raw = c?.[f.name];
      switch (f.kind.type) {
        case 'checkbox':
          v[f.name] = c ? Boolean(raw) : WEEKDAYS.includes(f.name as (typeof WEEKDAYS)[number]);
          break;
        case 'links':
          v[f.name] = c ? [...(raw as string[])] : [];
          break;
        case 'datetime':
          v[f.name] = toLocalInput(raw as string | null);
          break;
        case 'link':
          // The survey is an id in the record; the pickers hold links.
          v[f.name] = raw == null ? '' : f.kind.asId ? String(raw) : String(raw);
          break;
        default:
          v[f.name] = raw == null ? '' : String(raw);
      }
    }
  }
  if (!c) {
    Object.assign(v, { frequency: '10', dial_method: '1', max_aleg: '0', agent_dial_rate: '1', max_xfer: '0', calltimeout: '45', callmaxduration: '1800' });
    Object.assign(v, { maxretry: '0', intervalretry: '300', completion_maxretry: '0', completion_intervalretry: '900', amd_behavior: '1', daily_start_time: '00:00:00', daily_stop_time: '23:59:59' });
  }
  return v;
}

/** The request body: every field for a new campaign, only the changed ones for an update. */
export function requestBody(values: FormValues, initial: FormValues, isNew: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { fields } of GROUPS) {
    for (const f of fields) {
      const value = values[f.name];
      if (!isNew && JSON.stringify(value) === JSON.stringify(initial[f.name])) continue;
      switch (f.kind.type) {
        case 'datetime': {
          // Left empty on a new campaign: the API's default (now, and a day later).
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
        default:
          body[f.name] = value;
      }
    }
  }
  return body;
}
