import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { audioFiles, branchingTemplates, queues, SectionType, sectionTemplates, surveyTemplates } from '../db/schema.ts';
import { flowSectionDefaults, makeUser, unique } from '../../test/factories.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { type FlowBranch, type FlowSection, firstSection, flowProblems, loadFlow, nextSection, type SurveyFlow } from './survey-flow.ts';

// Before any test is declared: test/test-files.test.ts says why.
const database = await testDatabase();

let nextBranchId = 1000;

/** A section with the defaults of the API (contract §8), overridden by `over`. */
function section(id: number, order: number, over: Partial<FlowSection> = {}, branches: [string, number | null][] = []): FlowSection {
  return {
    id,
    order,
    ...flowSectionDefaults,
    type: SectionType.PlayMessage,
    question: `q${id}`,
    script: `q${id}`,
    retries: null,
    branches: branches.map(([keys, goto]): FlowBranch => ({ id: nextBranchId++, keys, goto })),
    ...over,
  };
}

const flowOf = (...sections: FlowSection[]): SurveyFlow => ({ survey_id: 1, name: 'survey', sections });
const keysOf = (map: Record<number, string>) => Array.from({ length: 10 }, (_, d) => map[d] ?? null);
const ids = (flow: SurveyFlow, start: FlowSection, inputs: Parameters<typeof nextSection>[2][]) => {
  const visited: number[] = [];
  let at: FlowSection | null = start;
  for (const input of inputs) {
    at = nextSection(flow, at as FlowSection, input);
    visited.push(at ? at.id : 0);
    if (!at) break;
  }
  return visited;
};

describe('survey flow: execution order', () => {
  test('the first section is the one with the lowest order, whatever the list order', () => {
    const flow = flowOf(section(1, 5), section(2, 1), section(3, 3));
    assert.equal(firstSection(flow)?.id, 2);
    assert.equal(firstSection(flowOf()), null);
  });

  test('without branches the sections play in order, then the call ends', () => {
    const flow = flowOf(section(1, 1), section(2, 2), section(3, 3));
    assert.deepEqual(ids(flow, flow.sections[0], [{}, {}, {}]), [2, 3, 0]);
  });

  test('a multi-choice section follows the branch of the exact digit before the any branch', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'yes', 2: 'no' }) }, [['1', 3], ['any', 2]]);
    const flow = flowOf(menu, section(2, 2), section(3, 3));
    assert.equal(nextSection(flow, menu, { digits: '1', outcome: 'ok' })?.id, 3);
    assert.equal(nextSection(flow, menu, { digits: '2', outcome: 'ok' })?.id, 2);
  });

  test('a branch listing several digits is taken for any of them', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a', 2: 'b', 3: 'c' }) }, [[' 1, 2 ', 3]]);
    const flow = flowOf(menu, section(2, 2), section(3, 3));
    assert.equal(nextSection(flow, menu, { digits: '1' })?.id, 3);
    assert.equal(nextSection(flow, menu, { digits: '2' })?.id, 3);
    assert.equal(nextSection(flow, menu, { digits: '3' })?.id, 2, 'no branch: next by order');
  });

  test('invalid and timeout follow their own branches and never the any branch', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a' }) }, [['any', 3], ['invalid', 4], ['timeout', null]]);
    const flow = flowOf(menu, section(2, 2), section(3, 3), section(4, 4));
    assert.equal(nextSection(flow, menu, { digits: '7', outcome: 'invalid' })?.id, 4);
    assert.equal(nextSection(flow, menu, { outcome: 'timeout' }), null, 'goto null hangs up');
    assert.equal(nextSection(flow, menu, { digits: '' }), null, 'no digits is a timeout');
    const bare = section(5, 1, { type: SectionType.Rating }, [['any', 3]]);
    const flow2 = flowOf(bare, section(6, 2), section(3, 3));
    assert.equal(nextSection(flow2, bare, { outcome: 'invalid' })?.id, 6, 'no invalid branch: next by order');
    assert.equal(nextSection(flow2, bare, { outcome: 'timeout' })?.id, 6);
  });

  test('a section that takes no input follows its 0 branch, else its any branch', () => {
    const play = section(1, 1, {}, [['0', 3]]);
    const other = section(2, 2, {}, [['any', 1]]);
    const flow = flowOf(play, other, section(3, 3));
    assert.equal(nextSection(flow, play, {})?.id, 3);
    assert.equal(nextSection(flow, play, { digits: '5', outcome: 'ok' })?.id, 3, 'digits are not read');
    assert.equal(nextSection(flow, other, { outcome: 'ok' })?.id, 1);
  });

  test('on a section that takes input, 0 is an ordinary digit', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 0: 'operator' }) }, [['0', 3]]);
    const flow = flowOf(menu, section(2, 2), section(3, 3));
    assert.equal(nextSection(flow, menu, { digits: '0' })?.id, 3);
    assert.equal(nextSection(flow, menu, { outcome: 'timeout' })?.id, 2);
  });

  test('capture digits and speech match the whole answer, words case-insensitively', () => {
    const capture = section(1, 1, { type: SectionType.CaptureDigits }, [['42', 3]]);
    const speech = section(2, 2, { type: SectionType.SpeechRecognition }, [['Yes', null], ['any', 3]]);
    const flow = flowOf(capture, speech, section(3, 3));
    assert.equal(nextSection(flow, capture, { digits: '42' })?.id, 3);
    assert.equal(nextSection(flow, capture, { digits: '4' })?.id, 2);
    assert.equal(nextSection(flow, speech, { digits: ' yes ' }), null);
    assert.equal(nextSection(flow, speech, { digits: 'no' })?.id, 3);
  });

  test('a hang-up section ends the call whatever its branches say', () => {
    const hangup = section(1, 1, { type: SectionType.HangUp }, [['0', 2]]);
    const flow = flowOf(hangup, section(2, 2));
    assert.equal(nextSection(flow, hangup, {}), null);
  });

  test('a loop back to an earlier section is followed', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 9: 'repeat' }) }, [['9', 1]]);
    const flow = flowOf(menu, section(2, 2));
    assert.deepEqual(ids(flow, menu, [{ digits: '9' }, { digits: '9' }, { outcome: 'timeout' }, {}]), [1, 1, 2, 0]);
  });

  test('a flow survives a JSON round trip unchanged', () => {
    const flow = flowOf(section(1, 1, { audiofile: 'audio/1.wav' }, [['0', null]]));
    assert.deepEqual(JSON.parse(JSON.stringify(flow)), flow);
  });
});

describe('survey flow: problems', () => {
  test('a flow whose sections all play has no problems', () => {
    const menu = section(2, 2, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a', 2: 'b' }) }, [['1', 3], ['2', null]]);
    assert.deepEqual(flowProblems(flowOf(section(1, 1, { audiofile: 'a.wav' }), menu, section(3, 3))), []);
  });

  test('a survey without sections cannot run', () => {
    assert.deepEqual(flowProblems(flowOf()), ['The survey has no sections.']);
  });

  test('a section after one that always branches away is unreachable', () => {
    const flow = flowOf(section(1, 1, {}, [['0', 3]]), section(2, 2, { question: 'lost' }), section(3, 3));
    const problems = flowProblems(flow);
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], /Section 2 .*"lost".* can never be reached/);
  });

  test('a section after a hang-up is unreachable unless a branch leads to it', () => {
    const flow = flowOf(section(1, 1, { type: SectionType.HangUp }), section(2, 2));
    assert.match(flowProblems(flow).join('\n'), /Section 2 .*never be reached/);
    const menu = section(0, 0, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'x' }) }, [['1', 2], ['any', 1], ['invalid', 1], ['timeout', 1]]);
    assert.deepEqual(flowProblems(flowOf(menu, section(1, 1, { type: SectionType.HangUp }), section(2, 2))), []);
  });

  test('a menu that covers every answer, invalid and timeout does not fall through', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a' }) }, [['1', 3], ['invalid', 3], ['timeout', null]]);
    assert.match(flowProblems(flowOf(menu, section(2, 2), section(3, 3))).join('\n'), /Section 2 .*never be reached/);
    const partial = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a' }) }, [['1', 3], ['invalid', 3]]);
    assert.deepEqual(flowProblems(flowOf(partial, section(2, 2), section(3, 3))), [], 'a timeout falls through to 2');
  });

  test('a rating with a branch per grade falls through only without invalid or timeout', () => {
    const grades = Array.from({ length: 3 }, (_, i): [string, number] => [String(i + 1), 3]);
    const rating = section(1, 1, { type: SectionType.Rating, rating_laps: 3 }, [...grades, ['invalid', 3], ['timeout', 3]]);
    assert.match(flowProblems(flowOf(rating, section(2, 2), section(3, 3))).join('\n'), /Section 2 .*never be reached/);
  });

  test('capture digits without number validation needs no invalid branch to be covered', () => {
    const capture = section(1, 1, { type: SectionType.CaptureDigits, validate_number: false }, [['any', 3], ['timeout', 3]]);
    assert.match(flowProblems(flowOf(capture, section(2, 2), section(3, 3))).join('\n'), /Section 2 .*never be reached/);
  });

  test('a play section without audio or script is a problem', () => {
    const problems = flowProblems(flowOf(section(1, 1, { script: ' ' })));
    assert.equal(problems.length, 1);
    assert.match(problems[0], /neither an audio file nor a script/);
  });

  test('a multi-choice key without a branch and without an any branch is a problem', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a', 2: 'b', 5: 'c' }) }, [['1,2', null]]);
    const problems = flowProblems(flowOf(menu));
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], /offers key 5 but has no branch/);
    menu.branches.push({ id: 1, keys: 'any', goto: null });
    assert.deepEqual(flowProblems(flowOf(menu)), []);
  });

  test('two branches answering the same digit are a problem', () => {
    const menu = section(1, 1, { type: SectionType.MultiChoice, keys: keysOf({ 1: 'a', 2: 'b' }) }, [['1,2', null], ['2', null]]);
    assert.match(flowProblems(flowOf(menu)).join('\n'), /several branches for "2"/);
  });
});

describe(`survey flow: loadFlow (${dbLabel})`, () => {
  test('loads the sections in play order with their audio paths, queue name and branches', async () => {
    const { db } = database;
    const user = await makeUser(db);
    const [survey] = await db.insert(surveyTemplates).values({ name: unique('s'), user_id: user.id }).returning();
    const [audio] = await db.insert(audioFiles).values({ name: 'hello', audio_file: 'audio/hello.wav', content_type: 'audio/wav', user_id: user.id }).returning();
    const [queue] = await db.insert(queues).values({ name: 'support', user_id: user.id }).returning();
    const [second, first] = await db
      .insert(sectionTemplates)
      .values([
        { survey_id: survey.id, order: 2, type: SectionType.Queue, question: 'queue', queue_id: queue.id, key_3: 'three' },
        { survey_id: survey.id, order: 1, question: 'hello', script: 'hi', audiofile_id: audio.id, invalid_audiofile_id: audio.id },
      ])
      .returning();
    await db.insert(branchingTemplates).values([
      { section_id: first.id, keys: '0', goto_id: second.id },
      { section_id: second.id, keys: 'any', goto_id: null },
    ]);
    const flow = await loadFlow(db, survey.id);
    assert.ok(flow);
    assert.equal(flow.name, survey.name);
    assert.deepEqual(flow.sections.map((s) => s.id), [first.id, second.id]);
    assert.equal(flow.sections[0].audiofile, 'audio/hello.wav');
    assert.equal(flow.sections[0].invalid_audiofile, 'audio/hello.wav');
    assert.equal(flow.sections[0].script, 'hi');
    assert.equal(flow.sections[1].queue, 'support');
    assert.equal(flow.sections[1].keys[3], 'three');
    assert.equal(flow.sections[1].keys.length, 10);
    assert.deepEqual(flow.sections[0].branches.map((b) => [b.keys, b.goto]), [['0', second.id]]);
    assert.deepEqual(flow.sections[1].branches.map((b) => [b.keys, b.goto]), [['any', null]]);
    assert.deepEqual(flowProblems(flow), []);
  });

  test('a missing survey loads as undefined; an empty one has no sections', async () => {
    const { db } = database;
    const user = await makeUser(db);
    const [survey] = await db.insert(surveyTemplates).values({ name: unique('s'), user_id: user.id }).returning();
    assert.equal(await loadFlow(db, 2_000_000_000), undefined);
    assert.deepEqual((await loadFlow(db, survey.id))?.sections, []);
  });
});
