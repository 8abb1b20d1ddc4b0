/** Filling `{name}` placeholders of the HTTP driver's templates; unknown names stay as they are. */
export function fillTemplate(template: string, values: Record<string, string>, escape: (value: string) => string): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? escape(values[name]) : whole));
}
