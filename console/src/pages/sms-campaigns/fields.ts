/**
 * The SMS campaign form's fields (/rest-api/sms-campaigns/, src/resources/campaigns/sms.schema.ts),
 * grouped as for voice campaigns: who, what, when, pace and retries.
 */
import { weekdayFields, type FormGroup, type FormValues } from '../../components/grouped-form.tsx';

export const SMS_GROUPS: FormGroup[] = [
  {
    title: 'Who',
    fields: [
      { name: 'phonebook', label: 'Phonebooks', hint: 'Every active contact of these phonebooks gets the message.', kind: { type: 'links', resource: 'phonebook' } },
      { name: 'callerid', label: 'Sender', hint: 'The number or name the message comes from (the gateway may override it).', kind: { type: 'text' } },
    ],
  },
  {
    title: 'What',
    fields: [
      { name: 'name', label: 'Name', kind: { type: 'text' } },
      { name: 'text_message', label: 'Message', hint: 'May name the contact’s {full_name} and its other columns ({debt}); a long text goes in several parts.', kind: { type: 'text', multiline: true, rows: 4 } },
      { name: 'sms_gateway', label: 'SMS gateway', hint: 'The carrier the messages go through.', kind: { type: 'link', resource: 'sms-gateway' } },
      { name: 'description', label: 'Description', kind: { type: 'text', multiline: true } },
    ],
  },
  {
    title: 'When',
    fields: [
      { name: 'startingdate', label: 'Starts', hint: 'In your browser’s time zone.', kind: { type: 'datetime' } },
      { name: 'expirationdate', label: 'Expires', hint: 'It ends by itself then.', kind: { type: 'datetime' } },
      { name: 'daily_start_time', label: 'Daily from', kind: { type: 'time' } },
      { name: 'daily_stop_time', label: 'Daily until', hint: 'A window may cross midnight.', kind: { type: 'time' } },
      ...weekdayFields(),
      { name: 'end_when_done', label: 'End when every contact is done', hint: 'Otherwise it waits for contacts added later.', kind: { type: 'checkbox' } },
    ],
  },
  {
    title: 'Pace and retries',
    fields: [
      { name: 'frequency', label: 'Messages per minute', kind: { type: 'number', min: 1 } },
      { name: 'maxretry', label: 'Retries', hint: 'Further attempts after a send the gateway refused.', kind: { type: 'number', min: 0, max: 100 } },
      { name: 'intervalretry', label: 'Wait between attempts (seconds)', kind: { type: 'number', min: 0 } },
      { name: 'callmaxduration', label: 'Max duration (seconds)', hint: 'Kept for Newfies clients; sending does not read it.', kind: { type: 'number', min: 1 } },
    ],
  },
];

/** A new SMS campaign's values: the API's defaults, shown. */
export const SMS_DEFAULTS: FormValues = {
  frequency: '10',
  maxretry: '0',
  intervalretry: '300',
  callmaxduration: '1800',
  daily_start_time: '00:00:00',
  daily_stop_time: '23:59:59',
};
