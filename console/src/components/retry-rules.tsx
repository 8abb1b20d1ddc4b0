/**
 * A voice campaign's `retry_rules` (issue 16): for each cause of a call that reached nobody, its
 * own number of retries and wait. A row left empty has no rule (the campaign's retries and wait
 * apply; a machine's answer stays final). The form holds the rules as their JSON text, rows in
 * the causes' order, so a record's rules and the same rules typed in compare equal; a row filled
 * in half is sent as it is, for the API to name what is missing beside the field.
 */
import { useId } from 'react';
import type { RetryCause } from '../../../src/campaign/retry-rules.ts';

/** A label for each cause the server knows (a cause added there fails the console's type check until it has one here). */
const LABELS: Record<RetryCause, string> = {
  busy: 'Busy',
  no_answer: 'No answer',
  failed: 'Failed (congestion, rejected, carrier)',
  machine: 'Answering machine',
};
const CAUSES = Object.entries(LABELS);
const PARTS = ['attempts', 'interval'] as const;
type Rows = Record<string, Partial<Record<(typeof PARTS)[number], string>>>;

/** The form's text for rules (a record's object, or the rows typed): '' when there are none. */
export function rulesText(rules: unknown): string {
  if (rules === null || typeof rules !== 'object') return '';
  const out: Record<string, Record<string, number>> = {};
  for (const [cause] of CAUSES) {
    const rule = (rules as Record<string, Record<string, unknown> | undefined>)[cause];
    if (!rule) continue;
    const kept: Record<string, number> = {};
    for (const part of PARTS) {
      const v = rule[part];
      if (v !== undefined && v !== '' && v !== null) kept[part] = Number(v);
    }
    if (Object.keys(kept).length) out[cause] = kept;
  }
  return Object.keys(out).length ? JSON.stringify(out) : '';
}

function rowsOf(text: string): Rows {
  const rules = (text ? JSON.parse(text) : {}) as Record<string, Record<string, number>>;
  return Object.fromEntries(CAUSES.map(([cause]) => [cause, Object.fromEntries(PARTS.map((p) => [p, rules[cause]?.[p] === undefined ? '' : String(rules[cause][p])]))]));
}

export function RetryRulesInput({
  label,
  hint,
  value,
  onChange,
  errors,
}: {
  label: string;
  hint?: string;
  value: string;
  onChange: (text: string) => void;
  errors?: string[];
}) {
  const id = useId();
  const rows = rowsOf(value);
  const set = (cause: string, part: string, v: string) => onChange(rulesText({ ...rows, [cause]: { ...rows[cause], [part]: v } }));
  return (
    <fieldset className={`checklist retry-rules${errors?.length ? ' field-invalid' : ''}`} aria-describedby={errors?.length ? `${id}-err` : undefined}>
      <legend>{label}</legend>
      {hint && <small className="hint">{hint}</small>}
      <table>
        <thead>
          <tr>
            <th scope="col">Cause</th>
            <th scope="col">Retries</th>
            <th scope="col">Wait (seconds)</th>
          </tr>
        </thead>
        <tbody>
          {CAUSES.map(([cause, name]) => (
            <tr key={cause}>
              <th scope="row">{name}</th>
              {PARTS.map((part) => (
                <td key={part}>
                  <input
                    type="number"
                    inputMode="numeric"
                    min={0}
                    step={1}
                    name={`retry_rules.${cause}.${part}`}
                    aria-label={`${name}: ${part === 'attempts' ? 'retries' : 'wait in seconds'}`}
                    value={rows[cause][part]}
                    onChange={(e) => set(cause, part, e.target.value)}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {errors?.length ? (
        <p id={`${id}-err`} className="field-error">
          {errors.join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
}
