/**
 * The section types (README "Numbers and settings", contract §4) as the editor shows them: a
 * name, what the type does in a few words, and the fields it runs with (src/engine/ivr.ts reads
 * those; the rest of a section's columns are ignored for that type, so the form hides them).
 */
import { SectionType } from '../../../../src/db/schema/section-type.ts';
import type { Section } from './types.ts';

export { SectionType };

/** The type-specific fields a form may show (common ones — question, script, audio, completed, order — are always shown). */
export type TypeField =
  | 'keys'
  | 'retries'
  | 'timeout'
  | 'invalid_audiofile'
  | 'rating_laps'
  | 'number_digits'
  | 'validate_number'
  | 'min_number'
  | 'max_number'
  | 'phonenumber'
  | 'conference'
  | 'queue'
  | 'sms_text'
  | 'api_url';

interface TypeInfo {
  name: string;
  does: string;
  fields: TypeField[];
  /** What `timeout` means for this type, when it uses one. */
  timeoutLabel?: string;
}

const ASK: TypeField[] = ['retries', 'timeout', 'invalid_audiofile'];

export const SECTION_TYPES: Record<number, TypeInfo> = {
  1: { name: 'Play message', does: 'Plays, then goes on.', fields: [] },
  2: { name: 'Multi-choice', does: 'Waits for one key; branches on it.', fields: ['keys', ...ASK], timeoutLabel: 'Seconds to wait for a key' },
  3: { name: 'Rating', does: 'Waits for a number from 1 to the highest rating.', fields: ['rating_laps', ...ASK], timeoutLabel: 'Seconds to wait for a key' },
  4: {
    name: 'Capture digits',
    does: 'Reads up to a number of keys, optionally within a range.',
    fields: ['number_digits', 'validate_number', 'min_number', 'max_number', ...ASK],
    timeoutLabel: 'Seconds to wait for the keys',
  },
  5: { name: 'Record message', does: 'Records the caller.', fields: ['timeout'], timeoutLabel: 'Longest recording, seconds (at least 60 is used)' },
  6: { name: 'Call transfer', does: 'Bridges the call to a phone number.', fields: ['phonenumber'] },
  7: { name: 'Hang up', does: 'Plays, then hangs up.', fields: [] },
  8: { name: 'Conference', does: 'Puts the caller in a conference room.', fields: ['conference'] },
  9: { name: 'Add to DNC', does: "Puts the number on the campaign's DNC list, then goes on.", fields: [] },
  10: { name: 'Send SMS', does: "Sends a text to the caller through the campaign's SMS gateway.", fields: ['sms_text'] },
  11: { name: 'API call', does: 'Calls a URL; its answer may pick the branch.', fields: ['api_url', 'timeout'], timeoutLabel: 'Seconds to wait for the answer' },
  12: { name: 'Queue', does: 'Hands the call to a call-center queue.', fields: ['queue'] },
  13: { name: 'Speech recognition', does: "The caller's words become the answer.", fields: ['timeout'], timeoutLabel: 'Seconds to listen' },
  14: { name: 'Asynchronous API call', does: 'Calls a URL and goes on at once.', fields: ['api_url'] },
};

export const typeName = (type: number) => SECTION_TYPES[type]?.name ?? `Type ${type}`;

/** Types whose outcome is an answer (src/campaign/survey-flow.ts INPUT_TYPES). */
const INPUT_TYPES: ReadonlySet<number> = new Set([2, 3, 4, 11, 13]);
export const takesInput = (type: number) => INPUT_TYPES.has(type);

export const KEY_NAMES = ['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6', 'key_7', 'key_8', 'key_9'] as const;

/** What a branch's keys may be for a section of this type, as a hint beside the field. */
export function keysHint(section: Pick<Section, 'type'>): string {
  if (takesInput(section.type)) {
    const answers = section.type === SectionType.SpeechRecognition ? 'A word or words' : 'A key or digits';
    return `${answers} ("1", or "1,2" for several), "any" (any other answer), "invalid" or "timeout" (no answer)`;
  }
  return '"0" (next) or "any": a section without input follows its 0 branch when the message is over';
}
