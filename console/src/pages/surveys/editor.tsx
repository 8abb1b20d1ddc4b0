/**
 * One survey's editor: the problems that stop it running, the sections in play order (as a graph
 * at desktop widths, and always as a plain list that opens the same forms from the keyboard), and
 * a panel with the selected section's form, its branches, and its removal. `?section=<id>` is
 * the selected section, `?new=1` the form for a new one, so the browser's back button works.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { del, get, getAll, listPath, recordPath } from '../../api/client.ts';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading } from '../../components/ui.tsx';
import { Branches, targetName } from './branches.tsx';
import { branchLabel, flowEdges, problemsBySection } from './flow.ts';
import { SectionForm } from './section-form.tsx';
import { typeName } from './section-types.ts';
import type { Flow, FlowSection, Section, Survey } from './types.ts';

// The graph (and @xyflow/react) is fetched only where it is shown: not at phone widths.
const SurveyGraph = lazy(() => import('./graph.tsx').then((m) => ({ default: m.SurveyGraph })));

const WIDE = '(min-width: 900px)';

function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const change = () => setMatches(list.matches);
    list.addEventListener('change', change);
    return () => list.removeEventListener('change', change);
  }, [query]);
  return matches;
}

function Problems({ flow }: { flow: Flow }) {
  if (flow.problems.length === 0) {
    return (
      <p className="flow-ok" role="status">
        Ready to run: the flow check finds no problem.
      </p>
    );
  }
  return (
    <section className="flow-problems" aria-labelledby="problems-title">
      <h2 id="problems-title">
        {flow.problems.length === 1 ? '1 problem' : `${flow.problems.length} problems`} to fix before a campaign can run this survey
      </h2>
      <ul>
        {flow.problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </section>
  );
}

function PlayOrder({ flow, selected, onSelect }: { flow: Flow; selected: number | undefined; onSelect: (id: number) => void }) {
  const problems = problemsBySection(flow.problems);
  const edges = flowEdges(flow);
  return (
    <section className="play-order" aria-labelledby="play-order-title">
      <h2 id="play-order-title">Play order</h2>
      <ol>
        {flow.sections.map((s, i) => (
          <li key={s.id}>
            <button type="button" className={`section-button${s.id === selected ? ' is-selected' : ''}`} aria-current={s.id === selected ? 'true' : undefined} onClick={() => onSelect(s.id)}>
              <span className="play-number">{i + 1}</span>
              <span>
                <span className="flow-node-type">{typeName(s.type)}</span> {s.question}
                {problems.get(s.id)?.length ? <span className="problem-mark"> ⚠ {problems.get(s.id)?.length === 1 ? '1 problem' : `${problems.get(s.id)?.length} problems`}</span> : null}
              </span>
            </button>
            {edges.some((e) => e.from === s.id) && (
              <ul className="branch-summary">
                {edges
                  .filter((e) => e.from === s.id)
                  .map((e) => (
                    <li key={e.id}>
                      {e.branchId === undefined ? e.label : branchLabel(e.label)} → {targetName(flow.sections, e.to)}
                    </li>
                  ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function SectionPanel({ section, flow, surveyUrl, onSelect, onDeleted }: { section: Section; flow: Flow; surveyUrl: string; onSelect: (id: number) => void; onDeleted: () => void }) {
  const client = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const remove = useMutation({
    mutationFn: () => del(recordPath('section-template', section.id)),
    onSuccess: async () => {
      onDeleted();
      await Promise.all([client.invalidateQueries({ queryKey: ['section-template'] }), client.invalidateQueries({ queryKey: ['survey-template'] })]);
    },
  });
  const position = flow.sections.findIndex((s) => s.id === section.id) + 1;
  const flowSection: FlowSection | undefined = flow.sections.find((s) => s.id === section.id);
  return (
    <>
      <h2 id="panel-title" tabIndex={-1}>
        {position > 0 ? `${position}. ` : ''}
        {typeName(section.type)}: {section.question}
      </h2>
      <SectionForm key={`${section.id}-${section.type}-${JSON.stringify(section)}`} section={section} surveyUrl={surveyUrl} onSaved={onSelect} />
      <Branches section={section} flowSection={flowSection} sections={flow.sections} />
      <div className="actions">
        <button type="button" className="danger" onClick={() => setConfirm(true)}>
          Delete this section…
        </button>
      </div>
      <ErrorMessage error={remove.error} />
      <ConfirmDialog
        open={confirm}
        title={`Delete the section ${section.question}?`}
        confirmLabel="Delete the section"
        onCancel={() => setConfirm(false)}
        onConfirm={() => {
          setConfirm(false);
          remove.mutate();
        }}
      >
        <p>Its branches go with it, and branches of other sections that lead to it will hang up instead.</p>
      </ConfirmDialog>
    </>
  );
}

export function SurveyEditor() {
  const id = Number(useParams().id);
  const [search, setSearch] = useSearchParams();
  const selected = Number(search.get('section')) || undefined;
  const adding = search.get('new') === '1';
  const wide = useMedia(WIDE);
  const survey = useQuery({ queryKey: ['survey-template', 'one', id], queryFn: () => get<Survey>(recordPath('survey-template', id)) });
  const flow = useQuery({ queryKey: ['survey-template', 'flow', id], queryFn: () => get<Flow>(`${recordPath('survey-template', id)}flow/`) });
  const sections = useQuery({
    queryKey: ['section-template', 'survey', id],
    queryFn: () => getAll<Section>(listPath('section-template', { survey_id: id, page_size: 100 })),
  });
  const select = (sectionId: number) => {
    setSearch({ section: String(sectionId) });
    focusPanel.current = true;
  };
  // After choosing a section (the graph may be redrawn, losing focus), the keyboard goes on in the panel.
  const focusPanel = useRef(false);
  useEffect(() => {
    if (!focusPanel.current) return;
    focusPanel.current = false;
    document.getElementById('panel-title')?.focus();
  });
  const addNew = () => setSearch({ new: '1' });

  if (survey.error) return <ErrorMessage error={survey.error} />;
  if (survey.isPending || flow.isPending || sections.isPending) return <Loading />;
  if (!flow.data || !sections.data) return <ErrorMessage error={flow.error ?? sections.error} />;
  const current = sections.data.find((s) => s.id === selected);
  const empty = flow.data.sections.length === 0;

  return (
    <>
      <p className="crumbs">
        <Link to="/surveys">Surveys</Link>
      </p>
      <div className="page-head">
        <h1>{survey.data.name}</h1>
        <button type="button" className="primary" onClick={addNew}>
          Add a section
        </button>
      </div>
      <ErrorMessage error={flow.error ?? sections.error} />
      {!empty && <Problems flow={flow.data} />}
      <div className={`survey-editor${current || adding ? ' has-panel' : ''}`}>
        <div className="survey-canvas">
          {!current && !adding && !empty && <p className="muted panel-hint">Choose a section (on the graph or in the play order) to edit it and its branches.</p>}
          {empty ? (
            <EmptyState title="No section yet">
              <p>
                A survey plays its sections in order: a message, a question whose keys lead to other sections, a closing message that hangs up. Add the first
                section, then the others, then the branches from the question to them.
              </p>
              <button type="button" className="primary" onClick={addNew}>
                Add the first section
              </button>
            </EmptyState>
          ) : (
            <>
              {wide && (
                <Suspense fallback={<Loading what="Drawing the graph…" />}>
                  {/* Drawn afresh (and fitted) when the sections or the space beside the panel change. */}
                  <SurveyGraph
                    key={`${current || adding ? 'narrow' : 'wide'}:${flow.data.sections.map((s) => `${s.id}/${s.branches.length}`).join(',')}:${flow.data.problems.length}`}
                    flow={flow.data}
                    selected={selected}
                    onSelect={select}
                  />
                </Suspense>
              )}
              <PlayOrder flow={flow.data} selected={selected} onSelect={select} />
            </>
          )}
        </div>
        {(current || adding) && (
          <aside className="survey-panel" aria-labelledby="panel-title">
            <div className="panel-close">
              <button type="button" onClick={() => setSearch({})}>
                Close
              </button>
            </div>
            {adding ? (
              <>
                <h2 id="panel-title">New section</h2>
                <SectionForm surveyUrl={survey.data.url} onSaved={select} />
              </>
            ) : (
              current && <SectionPanel section={current} flow={flow.data} surveyUrl={survey.data.url} onSelect={select} onDeleted={() => setSearch({})} />
            )}
          </aside>
        )}
      </div>
    </>
  );
}
