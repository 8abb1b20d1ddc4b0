import assert from 'node:assert/strict';
import test from 'node:test';
import { type EventRow, eventJson } from './events.ts';

const row = (data: unknown): EventRow => ({
  id: 7,
  txid: 42,
  type: 'call.completed',
  user_id: 1,
  campaign_id: 3,
  data: JSON.stringify(data),
  created: '2026-11-27T08:00:00.000Z',
});

test('eventJson makes every link value absolute, at any depth, and nothing else', () => {
  const data = {
    campaign: '/rest-api/campaigns/3/',
    results: [{ section: '/rest-api/section-template/9/', response: 'yes' }],
    note: 'he said "/rest-api/campaigns/3/" twice \\',
    '/rest-api/a-key/': '/rest-api/value/',
    plain: 'rest-api/not-a-link',
    nested: { list: ['/rest-api/x/', 1, null, true] },
  };
  const event = JSON.parse(eventJson(row(data), 'http://h:8000'));
  assert.deepEqual(event, {
    id: 'evt_00000000016000000000007',
    type: 'call.completed',
    created: '2026-11-27T08:00:00.000Z',
    data: {
      campaign: 'http://h:8000/rest-api/campaigns/3/',
      results: [{ section: 'http://h:8000/rest-api/section-template/9/', response: 'yes' }],
      note: 'he said "/rest-api/campaigns/3/" twice \\',
      '/rest-api/a-key/': 'http://h:8000/rest-api/value/',
      plain: 'rest-api/not-a-link',
      nested: { list: ['http://h:8000/rest-api/x/', 1, null, true] },
    },
  });
});

test('eventJson reads the text PostgreSQL keeps for json (spaces around the colons)', () => {
  const stored = { ...row({}), data: '{"campaign" : "/rest-api/campaigns/3/", "n" : 1}' };
  assert.deepEqual(JSON.parse(eventJson(stored, 'https://dialer.example')).data, { campaign: 'https://dialer.example/rest-api/campaigns/3/', n: 1 });
});
