/**
 * The voice campaign form's fields, grouped as an operator thinks of them (who, what, when, pace,
 * retries, voicemail and recording), with how each is read from a record and written back. The API checks
 * every value; its messages are shown next to the field they name.
 */
import type { VoiceCampaign } from '../../api/types.ts';
import { bodyOf, valuesOf, WEEKDAYS, type FormField, type FormValues } from '../../components/grouped-form.tsx';

/** A field of the voice campaign form: its name is one of the record's. */
type VoiceField = FormField & { name: keyof VoiceCampaign & string };

export const GROUPS: { title: string; fields: VoiceField[] }[] = [
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
      ...WEEKDAYS.map((d): VoiceField => ({ name: d, label: d.charAt(0).toUpperCase() + d.slice(1, 3), kind: { type: 'checkbox' } })),
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
      { name: 'agent_dial_rate', label: 'Agent dial rate', hint: 'Calls per line of “calls at once”: power dialing only; keep 1 with other methods.', kind: { type: 'number', min: 0, step: '0.01' } },
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
      {
        name: 'retry_rules',
        label: 'Retries by cause',
        hint: 'A cause left empty uses the retries and wait above; an answering machine without a rule is final.',
        kind: { type: 'retry-rules' },
      },
      { name: 'completion_enabled', label: 'Completion enabled', hint: 'Call back answered subscribers who did not reach a completed section.', kind: { type: 'checkbox' } },
      { name: 'completion_maxretry', label: 'Completion callbacks', kind: { type: 'number', min: 0 } },
      { name: 'completion_intervalretry', label: 'Wait before a completion callback (seconds)', kind: { type: 'number', min: 0 } },
    ],
  },
  {
    title: 'Voicemail and recording',
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
      { name: 'record_calls', label: 'Record whole calls', hint: 'Each call’s recording is listed with the call; kept as long as your account’s retention says.', kind: { type: 'checkbox' } },
    ],
  },
];

/** A new campaign's values (contract §5's defaults); what is not here starts empty, the weekdays checked. */
const DEFAULTS: FormValues = {
  frequency: '10',
  dial_method: '1',
  max_aleg: '0',
  agent_dial_rate: '1',
  max_xfer: '0',
  calltimeout: '45',
  callmaxduration: '1800',
  maxretry: '0',
  intervalretry: '300',
  completion_maxretry: '0',
  completion_intervalretry: '900',
  amd_behavior: '1',
  daily_start_time: '00:00:00',
  daily_stop_time: '23:59:59',
};

/** Form values for a new campaign or an existing one (the survey is an id in the record; the pickers hold it as text). */
export function initialValues(c?: VoiceCampaign): FormValues {
  return valuesOf(GROUPS, c as unknown as Record<string, unknown> | undefined, DEFAULTS);
}

/** The request body: every field (left-empty dates: the API's defaults) for a new campaign, only the changed ones for an update. */
export function requestBody(values: FormValues, initial: FormValues, isNew: boolean): Record<string, unknown> {
  return bodyOf(GROUPS, values, initial, isNew);
}
