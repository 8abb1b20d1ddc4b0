/**
 * What the editor draws from the API's flow (GET /survey-template/<id>/flow/): play positions,
 * the edges (branches, and the "otherwise next" a call falls through to), a layered layout, and
 * which problem sentence concerns which section. The fall-through rule is the server's
 * (src/campaign/survey-flow.ts `fallsThrough`), repeated here because the flow does not say it.
 */
import { SectionType, takesInput } from './section-types.ts';
import type { Flow, FlowSection } from './types.ts';

const parts = (keys: string) =>
  keys
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);

/** Whether some outcome of the section has no branch, so the call goes on to the next by order. */
export function fallsThrough(s: FlowSection): boolean {
  if (s.type === SectionType.HangUp) return false;
  const keys = new Set(s.branches.flatMap((b) => parts(b.keys)));
  if (!takesInput(s.type)) return !keys.has('0') && !keys.has('any');
  if (!keys.has('timeout')) return true;
  const canBeInvalid = !(s.type === SectionType.CaptureDigits && !s.validate_number);
  if (canBeInvalid && !keys.has('invalid')) return true;
  if (keys.has('any')) return false;
  const accepted =
    s.type === SectionType.MultiChoice
      ? s.keys.flatMap((label, digit) => (label ? [String(digit)] : []))
      : s.type === SectionType.Rating
        ? Array.from({ length: Math.max(s.rating_laps, 0) }, (_, i) => String(i + 1))
        : undefined;
  return accepted === undefined || accepted.some((a) => !keys.has(a));
}

/** "key 1" for digits, the word itself for any, invalid, timeout or a spoken answer. */
export const branchLabel = (keys: string) => (/^[0-9*#,]+$/.test(keys) ? `key ${keys}` : keys);

export interface Edge {
  id: string;
  from: number;
  /** null = hang up. */
  to: number | null;
  label: string;
  /** A branch's id, or undefined for the fall-through to the next section. */
  branchId?: number;
}

/** Branches, plus one dashed "otherwise" edge where a call can fall through to the next section. */
export function flowEdges(flow: Flow): Edge[] {
  const edges: Edge[] = [];
  flow.sections.forEach((s, i) => {
    for (const b of s.branches) edges.push({ id: `b${b.id}`, from: s.id, to: b.goto, label: b.keys, branchId: b.id });
    const next = flow.sections[i + 1];
    if (next && fallsThrough(s)) edges.push({ id: `next${s.id}`, from: s.id, to: next.id, label: 'otherwise' });
  });
  return edges;
}

/**
 * A layer per section, top to bottom: the first section on layer 0, each target of an edge that
 * goes forward in play order one layer below its source (the deepest wins), and a section no
 * forward edge reaches one below the section before it.
 */
export function layers(flow: Flow, edges: Edge[]): Map<number, number> {
  const position = new Map(flow.sections.map((s, i) => [s.id, i]));
  const layer = new Map<number, number>();
  flow.sections.forEach((s, i) => {
    if (!layer.has(s.id)) layer.set(s.id, i === 0 ? 0 : (layer.get(flow.sections[i - 1].id) ?? 0) + 1);
    const here = layer.get(s.id) as number;
    for (const e of edges) {
      if (e.from !== s.id || e.to === null) continue;
      if ((position.get(e.to) ?? -1) <= i) continue; // a loop back: drawn, but it does not push layers
      layer.set(e.to, Math.max(layer.get(e.to) ?? 0, here + 1));
    }
  });
  return layer;
}

/** Problems by the section they name ("Section 12 (order 3, …) …"); the others under 0. */
export function problemsBySection(problems: string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const p of problems) {
    const id = Number(/^Section (\d+) /.exec(p)?.[1] ?? 0);
    out.set(id, [...(out.get(id) ?? []), p]);
  }
  return out;
}
