/**
 * A survey as the IVR runs it (issue 4 §5): its sections in play order, each with its branches.
 * A SurveyFlow is plain JSON: a campaign freezes it as its survey snapshot when it first starts
 * (contract §5), and the engine walks it with `firstSection` / `nextSection`.
 *
 * Execution rules:
 * - The call starts at the section with the lowest `order` (ties: lowest id).
 * - After a section, the branch that matches the caller's input is followed; its `goto` null
 *   means hang up. With no matching branch the call goes on to the next section by order, and
 *   ends after the last one.
 * - A section that takes input (multi-choice, rating, capture digits, API call, speech
 *   recognition) matches, for an accepted answer, a branch listing exactly those digits (or
 *   words, case-insensitive), then the `any` branch; a rejected answer matches `invalid`, no
 *   answer matches `timeout` (neither falls back to `any`).
 * - A section that takes no input follows its `0` branch ("next"), else its `any` branch.
 * - A hang-up section (type 7) ends the call whatever its branches say.
 * - A branch's `keys` may list several answers separated by commas ("1,2"): the branch is
 *   taken for any of them. When two branches list the same answer, the one created first
 *   (lowest id) wins, and `flowProblems` reports it.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../db/database.ts';
import { audioFiles, branchingTemplates, queues, SectionType, sectionTemplates, surveyTemplates } from '../db/schema.ts';

export interface FlowBranch {
  id: number;
  keys: string;
  /** The section to go to (a section id), null = hang up. */
  goto: number | null;
}

export interface FlowSection {
  id: number;
  order: number;
  type: number;
  question: string;
  script: string;
  /** audio_files.audio_file: a path relative to DATA_DIR. */
  audiofile: string | null;
  invalid_audiofile: string | null;
  retries: number | null;
  timeout: number;
  /** key_0 … key_9 */
  keys: (string | null)[];
  rating_laps: number;
  validate_number: boolean;
  number_digits: number;
  min_number: number;
  max_number: number;
  phonenumber: string | null;
  conference: string | null;
  completed: boolean;
  /** The queue's name. */
  queue: string | null;
  sms_text: string | null;
  api_url: string | null;
  branches: FlowBranch[];
}

export interface SurveyFlow {
  survey_id: number;
  name: string;
  /** In play order. */
  sections: FlowSection[];
}

export interface FlowInput {
  digits?: string | null;
  outcome?: 'ok' | 'invalid' | 'timeout';
}

/** Special branch keys. */
export const BranchKey = { Any: 'any', Invalid: 'invalid', Timeout: 'timeout', Next: '0' } as const;

/** Section types whose outcome is an answer from the caller (or from the API called). */
const INPUT_TYPES: ReadonlySet<number> = new Set([
  SectionType.MultiChoice,
  SectionType.Rating,
  SectionType.CaptureDigits,
  SectionType.ApiCall,
  SectionType.SpeechRecognition,
]);

export const takesInput = (section: Pick<FlowSection, 'type'>): boolean => INPUT_TYPES.has(section.type);

const keyParts = (keys: string): string[] =>
  keys
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => k !== '');

/** The survey's flow, in three queries (survey, sections with their audio and queue, branches). */
export async function loadFlow(db: Db, surveyId: number): Promise<SurveyFlow | undefined> {
  const [survey] = await db
    .select({ id: surveyTemplates.id, name: surveyTemplates.name })
    .from(surveyTemplates)
    .where(eq(surveyTemplates.id, surveyId));
  if (!survey) return undefined;
  const audio = alias(audioFiles, 'audio');
  const invalidAudio = alias(audioFiles, 'invalid_audio');
  const rows = await db
    .select({ s: sectionTemplates, audiofile: audio.audio_file, invalid_audiofile: invalidAudio.audio_file, queue: queues.name })
    .from(sectionTemplates)
    .leftJoin(audio, eq(audio.id, sectionTemplates.audiofile_id))
    .leftJoin(invalidAudio, eq(invalidAudio.id, sectionTemplates.invalid_audiofile_id))
    .leftJoin(queues, eq(queues.id, sectionTemplates.queue_id))
    .where(eq(sectionTemplates.survey_id, surveyId))
    .orderBy(asc(sectionTemplates.order), asc(sectionTemplates.id));
  const branches = rows.length
    ? await db
        .select()
        .from(branchingTemplates)
        .where(inArray(branchingTemplates.section_id, rows.map((r) => r.s.id)))
        .orderBy(asc(branchingTemplates.id))
    : [];
  const sections = rows.map(({ s, audiofile, invalid_audiofile, queue }): FlowSection => ({
    id: s.id,
    order: s.order,
    type: s.type,
    question: s.question,
    script: s.script,
    audiofile,
    invalid_audiofile,
    retries: s.retries,
    timeout: s.timeout,
    keys: [s.key_0, s.key_1, s.key_2, s.key_3, s.key_4, s.key_5, s.key_6, s.key_7, s.key_8, s.key_9],
    rating_laps: s.rating_laps,
    validate_number: s.validate_number,
    number_digits: s.number_digits,
    min_number: s.min_number,
    max_number: s.max_number,
    phonenumber: s.phonenumber,
    conference: s.conference,
    completed: s.completed,
    queue,
    sms_text: s.sms_text,
    api_url: s.api_url,
    branches: branches.filter((b) => b.section_id === s.id).map((b) => ({ id: b.id, keys: b.keys, goto: b.goto_id })),
  }));
  return { survey_id: survey.id, name: survey.name, sections };
}

/** Sections in play order (the flow is normally sorted already; a hand-made one may not be). */
function playOrder(flow: SurveyFlow): FlowSection[] {
  return [...flow.sections].sort((a, b) => a.order - b.order || a.id - b.id);
}

export function firstSection(flow: SurveyFlow): FlowSection | null {
  return playOrder(flow)[0] ?? null;
}

/** The branch `current` follows for `input`, or undefined when none matches (fall through). */
export function matchBranch(current: FlowSection, input: FlowInput): FlowBranch | undefined {
  const byKey = (key: string) => current.branches.find((b) => keyParts(b.keys).includes(key));
  if (!takesInput(current)) return byKey(BranchKey.Next) ?? byKey(BranchKey.Any);
  const answer = (input.digits ?? '').trim().toLowerCase();
  const outcome = input.outcome ?? (answer === '' ? 'timeout' : 'ok');
  if (outcome === 'timeout') return byKey(BranchKey.Timeout);
  if (outcome === 'invalid') return byKey(BranchKey.Invalid);
  if (answer === '') return byKey(BranchKey.Timeout);
  return byKey(answer) ?? byKey(BranchKey.Any);
}

/** The section to play after `current` given the caller's input; null = hang up. */
export function nextSection(flow: SurveyFlow, current: FlowSection, input: FlowInput): FlowSection | null {
  if (current.type === SectionType.HangUp) return null;
  const branch = matchBranch(current, input);
  if (branch) return branch.goto === null ? null : (flow.sections.find((s) => s.id === branch.goto) ?? null);
  const ordered = playOrder(flow);
  const index = ordered.findIndex((s) => s.id === current.id);
  return index < 0 ? null : (ordered[index + 1] ?? null);
}

/** The answers a section accepts, when they are a known finite set (else undefined: any). */
function acceptedAnswers(section: FlowSection): string[] | undefined {
  if (section.type === SectionType.MultiChoice) {
    return section.keys.flatMap((label, digit) => (label ? [String(digit)] : []));
  }
  if (section.type === SectionType.Rating) {
    return Array.from({ length: Math.max(section.rating_laps, 0) }, (_, i) => String(i + 1));
  }
  return undefined;
}

/** Whether some outcome of `section` has no branch, so the call may go on to the next by order. */
function fallsThrough(section: FlowSection): boolean {
  if (section.type === SectionType.HangUp) return false;
  const keys = new Set(section.branches.flatMap((b) => keyParts(b.keys)));
  if (!takesInput(section)) return !keys.has(BranchKey.Next) && !keys.has(BranchKey.Any);
  if (!keys.has(BranchKey.Timeout)) return true;
  const canBeInvalid = !(section.type === SectionType.CaptureDigits && !section.validate_number);
  if (canBeInvalid && !keys.has(BranchKey.Invalid)) return true;
  if (keys.has(BranchKey.Any)) return false;
  const accepted = acceptedAnswers(section);
  return accepted === undefined || accepted.some((a) => !keys.has(a));
}

/** The ids of the sections a call can reach from the first, by branches or by falling through. */
export function reachableSections(flow: SurveyFlow): Set<number> {
  const ordered = playOrder(flow);
  const seen = new Set<number>();
  const todo = ordered.length ? [ordered[0]] : [];
  while (todo.length) {
    const section = todo.pop() as FlowSection;
    if (seen.has(section.id)) continue;
    seen.add(section.id);
    const next: (FlowSection | undefined)[] = section.type === SectionType.HangUp ? [] : section.branches.map((b) => ordered.find((s) => s.id === b.goto));
    if (fallsThrough(section)) next.push(ordered[ordered.indexOf(section) + 1]);
    for (const s of next) if (s && !seen.has(s.id)) todo.push(s);
  }
  return seen;
}

const describe = (s: FlowSection) => `Section ${s.id} (order ${s.order}, "${s.question}")`;

function sectionProblems(section: FlowSection): string[] {
  const problems: string[] = [];
  const keys = section.branches.flatMap((b) => keyParts(b.keys));
  if (section.type === SectionType.PlayMessage && !section.audiofile && section.script.trim() === '') {
    problems.push(`${describe(section)} plays a message but has neither an audio file nor a script.`);
  }
  if (section.type === SectionType.MultiChoice && !keys.includes(BranchKey.Any)) {
    const missing = section.keys.flatMap((label, digit) => (label && !keys.includes(String(digit)) ? [String(digit)] : []));
    if (missing.length) {
      problems.push(`${describe(section)} offers key ${missing.join(', ')} but has no branch for it and no "any" branch.`);
    }
  }
  if (section.type === SectionType.CallTransfer && !section.phonenumber?.trim()) {
    problems.push(`${describe(section)} transfers the call but has no phone number.`);
  }
  const repeated = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
  if (repeated.length) {
    problems.push(`${describe(section)} has several branches for "${repeated.join('", "')}"; the first one created is used.`);
  }
  return problems;
}

/** What stops the flow from running as its author likely meant, as sentences; [] = ready to run. */
export function flowProblems(flow: SurveyFlow): string[] {
  if (flow.sections.length === 0) return ['The survey has no sections.'];
  const reachable = reachableSections(flow);
  const problems: string[] = [];
  for (const section of playOrder(flow)) {
    if (!reachable.has(section.id)) {
      problems.push(`${describe(section)} can never be reached: no branch leads to it and no section before it falls through to it.`);
    }
    problems.push(...sectionProblems(section));
  }
  return problems;
}
