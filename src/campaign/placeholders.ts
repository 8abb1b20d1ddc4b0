/**
 * A text filled in for one subscriber: `{full_name}` and the keys of the contact's
 * additional_vars (`{debt}`). An SMS campaign's `text_message`, a send-SMS section's text and a
 * voice section's `script` spoken by text to speech all use it (issue 16 item 7). An unknown
 * placeholder is left as it is, so a typo shows rather than silently vanishing.
 */

/** The text for one subscriber. */
export function fillPlaceholders(template: string, fullName: string, vars: unknown): string {
  const values = vars && typeof vars === 'object' && !Array.isArray(vars) ? (vars as Record<string, unknown>) : {};
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, key: string) => {
    if (key === 'full_name') return fullName;
    if (!Object.hasOwn(values, key)) return whole;
    const value = values[key];
    if (value === null || value === undefined) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}
