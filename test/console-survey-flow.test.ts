/**
 * The survey editor's reading of a flow (console/src/pages/surveys/flow.ts): its fall-through
 * rule repeats the server's (src/campaign/survey-flow.ts), so the two are held together here —
 * in a flow [A, B] with no branch to B, B is reachable exactly when A falls through — and the
 * layers put the README's example (a question, then two closing messages) on two rows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fallsThrough, flowEdges, layers } from '../console/src/pages/surveys/flow.ts';
import type { Flow } from '../console/src/pages/surveys/types.ts';
import { reachableSections, type FlowSection, type SurveyFlow } from '../src/campaign/survey-flow.ts';

function section(id: number, type: number, branches: [string, number | null][] = [], extra: Partial<FlowSection> = {}): FlowSection {
  return {
    id, order: id, type, question: `s${id}`, script: 'hello', audiofile: null, invalid_audiofile: null, retries: null, timeout: 5,
    keys: [null, 'yes', 'no', null, null, null, null, null, null, null], rating_laps: 3, validate_number: true, number_digits: 2,
    min_number: 0, max_number: 99, phonenumber: null, conference: null, completed: false, queue: null, sms_text: null, api_url: null,
    branches: branches.map(([keys, goto], i) => ({ id: id * 100 + i, keys, goto })),
    ...extra,
  };
}

const CASES: [string, FlowSection][] = [
  ['play message without branch', section(1, 1)],
  ['play message with 0', section(1, 1, [['0', null]])],
  ['play message with any', section(1, 1, [['any', null]])],
  ['hang up', section(1, 7)],
  ['multi-choice 1 and 2 only', section(1, 2, [['1', null], ['2', null]])],
  ['multi-choice 1,2 + timeout + invalid', section(1, 2, [['1,2', null], ['timeout', null], ['invalid', null]])],
  ['multi-choice any + timeout + invalid', section(1, 2, [['any', null], ['timeout', null], ['invalid', null]])],
  ['multi-choice 1 + timeout + invalid', section(1, 2, [['1', null], ['timeout', null], ['invalid', null]])],
  ['rating 1..3 + timeout + invalid', section(1, 3, [['1,2,3', null], ['timeout', null], ['invalid', null]])],
  ['capture digits without validation + timeout + any', section(1, 4, [['timeout', null], ['any', null]], { validate_number: false })],
  ['capture digits validated + timeout + any', section(1, 4, [['timeout', null], ['any', null]])],
  ['speech + timeout + invalid', section(1, 13, [['timeout', null], ['invalid', null]])],
];

for (const [name, first] of CASES) {
  test(`fall-through agrees with the server: ${name}`, () => {
    const flow: SurveyFlow = { survey_id: 1, name: 'x', sections: [first, section(2, 7)] };
    assert.equal(fallsThrough(first), reachableSections(flow).has(2));
  });
}

test("the README's example: the question on the first row, both closing messages on the second", () => {
  const flow = {
    survey: 'http://x/rest-api/survey-template/1/',
    problems: [],
    sections: [section(1, 2, [['1', 2], ['2', 3]]), section(2, 7), section(3, 7)],
  } as unknown as Flow;
  const edges = flowEdges(flow);
  assert.deepEqual(
    edges.map((e) => [e.from, e.to, e.label]),
    [
      [1, 2, '1'],
      [1, 3, '2'],
      [1, 2, 'otherwise'], // no timeout branch: a caller who presses nothing goes on to section 2
    ],
  );
  assert.deepEqual([...layers(flow, edges)], [
    [1, 0],
    [2, 1],
    [3, 1],
  ]);
});
