/**
 * The survey as a graph (@xyflow/react): a node per section, numbered in play order, with its
 * problems written on it; an edge per branch labelled with its keys, and a dashed "otherwise"
 * edge where a call falls through to the next section. Laid out in layers (flow.ts), not
 * draggable: the layout is computed from the survey, so it says the same thing every time.
 * Selecting a node (click, or Tab to it and Enter) opens that section's form.
 */
import { useEffect, useMemo, useState } from 'react';
import {
  applyNodeChanges,
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge as RfEdge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { branchLabel, flowEdges, layers, problemsBySection } from './flow.ts';
import { typeName } from './section-types.ts';
import type { Flow } from './types.ts';

const WIDTH = 230;
const X_GAP = 60;
const Y_GAP = 190;
const END = 'end';

type SectionNodeData = { position: number; type: number; question: string; answers: string; completed: boolean; problems: string[]; selected: boolean };
type EndNodeData = Record<string, never>;

/** A problem sentence without its "Section 12 (order 1, "…")" prefix: on the node, the node says which. */
const withoutPrefix = (p: string) => p.replace(/^Section \d+ \(order -?\d+, ".*?"\) /, '');

function SectionNode({ data }: NodeProps<Node<SectionNodeData>>) {
  return (
    <div className={`flow-node${data.problems.length ? ' has-problem' : ''}${data.selected ? ' is-selected' : ''}`}>
      <Handle type="target" position={Position.Top} />
      <div className="flow-node-head">
        <span className="play-number" aria-label={`Plays ${data.position}`}>
          {data.position}
        </span>
        <span className="flow-node-type">{typeName(data.type)}</span>
        {data.completed && <span className="tag">completes</span>}
      </div>
      <div className="flow-node-question">{data.question}</div>
      {data.answers && <div className="flow-node-answers">{data.answers}</div>}
      {data.problems.map((p) => (
        <p key={p} className="flow-node-problem">
          ⚠ {withoutPrefix(p)}
        </p>
      ))}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

function EndNode() {
  return (
    <div className="flow-end">
      <Handle type="target" position={Position.Top} />
      Hang up
    </div>
  );
}

const nodeTypes = { section: SectionNode, end: EndNode };
const FIT = { padding: 0.12, maxZoom: 1 };
const MIN_ZOOM = 0.3;



/** The nodes and edges of the flow, placed by layer. */
function layout(flow: Flow, selected: number | undefined): { nodes: Node[]; edges: RfEdge[] } {
  const edges = flowEdges(flow);
  const layerOf = layers(flow, edges);
  const problems = problemsBySection(flow.problems);
  const rows = new Map<number, number[]>();
  for (const s of flow.sections) {
    const l = layerOf.get(s.id) ?? 0;
    rows.set(l, [...(rows.get(l) ?? []), s.id]);
  }
  const widest = Math.max(1, ...[...rows.values()].map((r) => r.length));
  const xOf = (index: number, count: number) => (index - (count - 1) / 2) * (WIDTH + X_GAP) + ((widest - 1) / 2) * (WIDTH + X_GAP);
  const nodes: Node[] = flow.sections.map((s, i) => {
    const l = layerOf.get(s.id) ?? 0;
    const row = rows.get(l) ?? [];
    return {
      id: String(s.id),
      type: 'section',
      position: { x: xOf(row.indexOf(s.id), row.length), y: l * Y_GAP },
      data: {
        position: i + 1,
        type: s.type,
        question: s.question,
        // A multi-choice section's named keys: "1 yes · 2 no".
        answers: s.keys.flatMap((label, digit) => (label ? [`${digit} ${label}`] : [])).join(' · '),
        completed: s.completed, problems: problems.get(s.id) ?? [], selected: s.id === selected },
      selected: s.id === selected,
      ariaLabel: `${i + 1}. ${typeName(s.type)}: ${s.question}${problems.get(s.id)?.length ? ' (has problems)' : ''}`,
      width: WIDTH,
    } satisfies Node<SectionNodeData>;
  });
  if (edges.some((e) => e.to === null)) {
    const bottom = Math.max(0, ...layerOf.values()) + 1;
    nodes.push({ id: END, type: 'end', position: { x: xOf(0, 1) + WIDTH / 2 - 50, y: bottom * Y_GAP }, data: {} satisfies EndNodeData, selectable: false, focusable: false });
  }
  // Edges between the same two nodes are drawn as one, their labels joined (else they overlap).
  const pairs = new Map<string, typeof edges>();
  for (const e of edges) {
    const key = `${e.from}>${e.to ?? END}`;
    pairs.set(key, [...(pairs.get(key) ?? []), e]);
  }
  const rfEdges: RfEdge[] = [...pairs.values()].map((group) => ({
    id: group.map((e) => e.id).join('+'),
    source: String(group[0].from),
    target: group[0].to === null ? END : String(group[0].to),
    label: group.map((e) => (e.branchId === undefined ? e.label : branchLabel(e.label))).join(' · '),
    style: group.every((e) => e.branchId === undefined) ? { strokeDasharray: '6 4' } : undefined,
    markerEnd: { type: MarkerType.ArrowClosed },
    focusable: false,
    labelBgPadding: [4, 2] as [number, number],
  }));

  return { nodes, edges: rfEdges };
}

export function SurveyGraph({ flow, selected, onSelect }: { flow: Flow; selected: number | undefined; onSelect: (id: number) => void }) {
  const computed = useMemo(() => layout(flow, selected), [flow, selected]);
  // The nodes are controlled: their measured sizes (which xyflow reports as changes) must be
  // kept, or a node re-rendered without a change of size would stay hidden, never re-measured.
  const [nodes, setNodes] = useState(computed.nodes);
  useEffect(() => setNodes((old) => computed.nodes.map((n) => ({ ...n, measured: old.find((o) => o.id === n.id)?.measured }))), [computed]);
  return (
    <div className="flow-graph" role="group" aria-label="The survey as a graph">
      <ReactFlow
        nodes={nodes}
        edges={computed.edges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        fitView
        fitViewOptions={FIT}
        minZoom={MIN_ZOOM}
        proOptions={{ hideAttribution: false }}
        onNodeClick={(_, node) => node.type === 'section' && onSelect(Number(node.id))}
        // Enter or Space on a focused node selects it: a 'select' change (the nodes are controlled).
        onNodesChange={(changes) => {
          setNodes((old) => applyNodeChanges(changes.filter((c) => c.type === 'dimensions'), old));
          const chosen = changes.find((c) => c.type === 'select' && c.selected && c.id !== END);
          if (chosen && chosen.type === 'select' && Number(chosen.id) !== selected) onSelect(Number(chosen.id));
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
