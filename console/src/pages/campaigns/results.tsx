/**
 * A voice campaign's survey results: per question, a horizontal bar per answer with its count and
 * share written out. The bars are plain HTML and CSS (a table, so screen readers read the numbers
 * as a table): a few bars per question need no chart library.
 */
import { useQuery } from '@tanstack/react-query';
import { get, recordPath } from '../../api/client.ts';
import type { SurveyResults } from '../../api/types.ts';
import { EmptyState, ErrorMessage, Loading } from '../../components/ui.tsx';
import { formatInteger, formatPercent } from '../../format.ts';
import './results.css';

/** ['campaigns', …]: call.completed makes it stale (api/events.tsx), so the bars grow as calls end. */
export function useSurveyResults(campaignId: number) {
  return useQuery({
    queryKey: ['campaigns', 'results', campaignId],
    queryFn: () => get<SurveyResults>(`${recordPath('campaigns', campaignId)}results/`),
  });
}

function answerLabel({ response, label }: { response: string; label: string | null }): string {
  if (response === '') return 'No valid answer';
  if (response === 'recorded') return 'Recorded a message';
  return label ? `${response} · ${label}` : response;
}

function QuestionChart({ question, index }: { question: SurveyResults['results'][number]; index: number }) {
  const { answered, responses } = question;
  return (
    <figure className="question-chart" data-testid="question-chart">
      <figcaption id={`question-${index}`}>
        <strong>{question.question || `Question ${question.section_order ?? index + 1}`}</strong>{' '}
        <span className="muted">
          · {formatInteger(answered)} {answered === 1 ? 'call' : 'calls'} answered
        </span>
      </figcaption>
      <table aria-labelledby={`question-${index}`}>
        <thead className="sr-only">
          <tr>
            <th scope="col">Answer</th>
            <th scope="col">Share</th>
            <th scope="col">Calls</th>
          </tr>
        </thead>
        <tbody>
          {responses.map((r) => {
            const share = answered ? r.count / answered : 0;
            return (
              <tr key={r.response} data-testid="response">
                <th scope="row" className={r.response === '' || r.response === 'recorded' ? 'muted' : undefined}>
                  {answerLabel(r)}
                </th>
                <td className="bar-cell">
                  <span className="bar" style={{ width: `${Math.max(share * 100, 0.5)}%` }} aria-hidden="true" />
                </td>
                <td className="num" data-testid="count">
                  {formatInteger(r.count)} <span className="muted">({formatPercent(share)})</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </figure>
  );
}

export function CampaignSurveyResults({ campaignId }: { campaignId: number }) {
  const results = useSurveyResults(campaignId);
  return (
    <section aria-labelledby="results-title" data-testid="survey-results">
      <h2 id="results-title">Survey results</h2>
      <ErrorMessage error={results.error} />
      {results.isPending ? (
        <Loading />
      ) : results.data?.results.length === 0 ? (
        <EmptyState title="No answer yet">
          <p>Each question of the survey gets a chart here as soon as a called person answers it.</p>
        </EmptyState>
      ) : (
        results.data?.results.map((q, i) => <QuestionChart key={`${q.section_order}-${q.section}-${q.question}`} question={q} index={i} />)
      )}
    </section>
  );
}
