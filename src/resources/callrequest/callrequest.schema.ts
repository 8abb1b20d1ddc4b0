/** The shapes /rest-api/callrequest/ answers (read-only: no request fields): a call request, and one of its survey answers. */
import { Type } from '@sinclair/typebox';

const NullableLink = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

export const CallRequestRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  campaign: Type.String({ format: 'uri' }),
  subscriber: NullableLink,
  status: Type.Integer(),
  request_uuid: Type.String(),
  phone_number: Type.String(),
  callerid: Type.String(),
  aleg_gateway: NullableLink,
  attempt: Type.Integer(),
  hangup_cause: Type.String(),
  hangup_cause_q850: Type.Union([Type.Integer(), Type.Null()]),
  completed: Type.Boolean(),
  call_time: Type.Union([Type.String(), Type.Null()]),
  results: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

export const CallResultRecord = Type.Object({
  id: Type.Integer(),
  callrequest: Type.String({ format: 'uri' }),
  section: NullableLink,
  section_order: Type.Union([Type.Integer(), Type.Null()]),
  question: Type.String(),
  response: Type.String(),
  record_file: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
});
