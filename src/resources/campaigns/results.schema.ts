/** The shape /rest-api/campaigns/<id>/results/ answers: a voice campaign's survey answers, aggregated per question. */
import { Type } from '@sinclair/typebox';

export const QuestionResults = Type.Object({
  section: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'The section template, while it still exists' }),
  section_order: Type.Union([Type.Integer(), Type.Null()]),
  question: Type.String(),
  answered: Type.Integer({ description: 'Calls that answered this question' }),
  responses: Type.Array(
    Type.Object({
      response: Type.String({ description: 'The answer as recorded; "recorded" for a recorded message; "" for no valid answer' }),
      label: Type.Union([Type.String(), Type.Null()], { description: "A multi-choice answer's key label in the survey the campaign runs (key_1: \"yes\")" }),
      count: Type.Integer({ description: 'Calls that gave this answer' }),
    }),
    { description: 'Most frequent first' },
  ),
});

export const SurveyResults = Type.Object({
  campaign: Type.String({ format: 'uri' }),
  results: Type.Array(QuestionResults, { description: 'One entry per question, in play order (section_order)' }),
});
