/**
 * Personal voice messages (issue 16 item 7): a section's `script`, spoken by text to speech, has
 * `{full_name}` and the contact's additional_vars filled in before the driver is asked to say it,
 * with the SMS renderer's rules (an unknown placeholder stays as written). Observed on the text
 * the engine hands the driver (ScriptedDriver's "play:" log).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { flowOf, pass, scenario, section } from './engine.fixtures.ts';

const database = await testDatabase();
const db = database.db;

test(`a section's script is spoken with the contact's full name and additional_vars filled in (${dbLabel})`, async () => {
  const s = await scenario(db, {
    campaign: {
      survey_snapshot: flowOf([
        section({ order: 1, type: 1, script: 'Hello {full_name}, you owe {debt} dollars, due {due}. {not_a_var} stays.' }),
        section({ order: 2, type: 2, question: 'Pay now?', script: '{full_name}, press 1 to pay {debt} now.', keys: ['', 'yes', null, null, null, null, null, null, null, null] }),
        // No script: the question is spoken, filled in too.
        section({ order: 3, type: 7, question: 'Goodbye {full_name}.' }),
      ]),
    },
    subscriber: { full_name: 'Ann Lee', additional_vars: { debt: '42.50', due: 'Monday' } },
    script: () => ({ keys: ['1'] }),
  });
  await pass(s);
  assert.equal(s.driver.calls.length, 1);
  const spoken = s.driver.calls[0].log.filter((l) => l.startsWith('play:'));
  assert.deepEqual(spoken, [
    'play:Hello Ann Lee, you owe 42.50 dollars, due Monday. {not_a_var} stays.',
    'play:Ann Lee, press 1 to pay 42.50 now.',
    'play:Goodbye Ann Lee.',
  ]);
});
