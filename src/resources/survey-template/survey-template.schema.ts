import { Type } from '@sinclair/typebox';
import { text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** Request fields (contract §8: `name` required; `user` defaults to the caller). */
export const surveyTemplateFields = {
  name: text({ required: true, max: 100, blank: false }),
  description: text({ max: 2000, nullable: true }),
  user: userLink(),
};

export const SurveyTemplateRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  user: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

const FlowBranchRecord = Type.Object({
  id: Type.Integer(),
  keys: Type.String(),
  goto: Type.Union([Type.Integer(), Type.Null()], { description: 'section id; null = hang up' }),
});

export const FlowSectionRecord = Type.Object(
  {
    id: Type.Integer(),
    order: Type.Integer(),
    type: Type.Integer(),
    question: Type.String(),
    branches: Type.Array(FlowBranchRecord),
  },
  { additionalProperties: true },
);

/** GET /survey-template/<id>/flow/: the survey as a call runs it, and what stops it running. */
export const SurveyFlowRecord = Type.Object({
  survey: Type.String({ format: 'uri' }),
  sections: Type.Array(FlowSectionRecord),
  problems: Type.Array(Type.String()),
});
