/**
 * The rules of a branch (issue 4 §5): what its `keys` may say, one branch per answer of a
 * section (contract §8), and a `goto` inside the same survey.
 */
import { SectionType } from '../../db/schema.ts';
import type { Db } from '../../db/database.ts';
import { invalid } from '../../http/errors.ts';
import { BranchKey } from '../../campaign/survey-flow.ts';
import { sectionInfo, siblingKeys } from './branching-template.repository.ts';

const SPECIAL: readonly string[] = [BranchKey.Any, BranchKey.Invalid, BranchKey.Timeout];
const KEYS_MESSAGE =
  'Enter a digit or digits ("1", "42"), several answers separated by commas ("1,2"), or one of "any", "invalid", "timeout".';

/**
 * The keys as stored: answers trimmed and separated by a bare comma, the special words in lower
 * case. A speech recognition section (13) also takes words as answers.
 */
export function normalizeKeys(raw: string, sectionType: number): string {
  const parts = raw.split(',').map((p) => p.trim());
  const lower = parts.map((p) => p.toLowerCase());
  if (lower.length === 1 && SPECIAL.includes(lower[0])) return lower[0];
  const answer = sectionType === SectionType.SpeechRecognition ? /^[\p{L}\p{N}' -]+$/u : /^[0-9*#]+$/;
  if (parts.some((p) => !answer.test(p) || SPECIAL.includes(p.toLowerCase()))) throw invalid({ keys: [KEYS_MESSAGE] });
  return parts.join(',');
}

const answersOf = (keys: string) => keys.split(',').map((k) => k.trim().toLowerCase());

export interface BranchCandidate {
  /** The branch being changed (PATCH), left out of the duplicate check. */
  id?: number;
  keys: string;
  section_id: number;
  goto_id: number | null;
}

/** Checks a new or merged branch; returns its normalised keys. Throws 400 on a broken rule. */
export async function checkBranch(db: Db, branch: BranchCandidate): Promise<string> {
  const section = await sectionInfo(db, branch.section_id);
  if (!section) throw invalid({ section: ['Invalid hyperlink - Object does not exist.'] });
  const keys = normalizeKeys(branch.keys, section.type);
  if (branch.goto_id !== null) {
    const target = await sectionInfo(db, branch.goto_id);
    if (!target || target.survey_id !== section.survey_id) {
      throw invalid({ goto: ['The section to go to must be a section of the same survey.'] });
    }
  }
  const taken = new Set((await siblingKeys(db, branch.section_id, branch.id)).flatMap(answersOf));
  const repeated = answersOf(keys).filter((k) => taken.has(k));
  if (repeated.length) {
    throw invalid({ keys: [`This section already has a branch for "${repeated.join('", "')}".`] });
  }
  return keys;
}

/** A unique violation on (section, keys) lost to a concurrent insert reads as the same 400. */
export function isDuplicateKeys(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export const duplicateKeys = () => invalid({ keys: ['This section already has a branch with these keys.'] });
