/**
 * The NUL character (U+0000) is refused at the door, in one place: PostgreSQL stores no 0x00 in
 * `text` and no \u0000 in `jsonb`, so a NUL that reached a query was a 500. Every request's
 * JSON body and query string are walked before the route runs (app.ts), multipart fields by the
 * upload readers, CSV cells by the import; each answers 400 naming the field, with DRF's message.
 */
import { type AppError, invalid } from './errors.ts';

export const NUL_MESSAGE = 'Null characters are not allowed.';

/** Whether `value` holds a NUL in any string or object key, at any depth (no recursion: depth is the client's). */
export function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item); // not push(...v): a long array would overflow the stack
    } else if (v !== null && typeof v === 'object') {
      for (const [key, inner] of Object.entries(v)) {
        if (key.includes('\u0000')) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/**
 * The 400 `{field: ["Null characters are not allowed."]}` for each top-level field of `input`
 * (a body, a query, a form) whose value holds a NUL, or undefined when there is none; a NUL in
 * a field's own name, or in a body that is not an object, is reported under `non_field_errors`.
 */
export function nulError(input: unknown): AppError | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return holdsNul(input) ? invalid({ non_field_errors: [NUL_MESSAGE] }) : undefined;
  }
  const fields: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.includes('\u0000')) fields.push('non_field_errors');
    else if (holdsNul(value)) fields.push(key);
  }
  return fields.length > 0 ? invalid(Object.fromEntries(fields.map((field) => [field, [NUL_MESSAGE]]))) : undefined;
}

/** Throws nulError(input) when there is one. */
export function refuseNul(input: unknown): void {
  const error = nulError(input);
  if (error) throw error;
}
