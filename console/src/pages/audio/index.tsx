/**
 * Audio files: the list (a player, what the decoder found, where each is used) and an upload
 * by drag and drop or a file input, with its progress.
 *
 * The player reads `…/<id>/download/`, which the session cookie authenticates like any GET.
 * "Used by" is read from the survey sections (`audiofile`, `invalid_audiofile`) and the voice
 * campaigns (`voicemail_audiofile`) the user can see: the audio record itself does not say.
 */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { ApiError, del, get, getAll, idOf, listPath, recordPath, type Page } from '../../api/client.ts';
import { useAllCampaigns, useChoices } from '../../api/queries.ts';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatDecimal, formatInteger } from '../../format.ts';
import { AudioUpload } from './upload.tsx';
import '../../components/lists.css';

const PAGE_SIZE = 20;

export interface AudioFile {
  id: number;
  url: string;
  name: string;
  audio_file: string;
  duration: number | null;
  sample_rate: number | null;
  channels: number | null;
  user: string;
  created_date: string;
  updated_date: string;
}

interface Section {
  url: string;
  question: string;
  survey: string;
  audiofile: string | null;
  invalid_audiofile: string | null;
}

interface Use {
  key: string;
  text: string;
  to?: string;
}

/** Audio file id → where it is used (sections of surveys, campaigns' voicemail). */
function useUses() {
  const sections = useQuery({
    queryKey: ['section-template', 'all'],
    queryFn: () => getAll<Section>(listPath('section-template', { page_size: 1000 })),
  });
  const surveys = useChoices('survey-template');
  const campaigns = useAllCampaigns();
  const uses = new Map<number, Use[]>();
  const add = (link: string | null | undefined, use: Use) => {
    const id = idOf(link);
    if (id === undefined) return;
    uses.set(id, [...(uses.get(id) ?? []), use]);
  };
  const surveyName = new Map((surveys.data ?? []).map((s) => [s.url, s.name]));
  for (const s of sections.data ?? []) {
    const survey = surveyName.get(s.survey) ?? 'a survey';
    add(s.audiofile, { key: `${s.url}a`, text: `${survey}: “${s.question}”` });
    add(s.invalid_audiofile, { key: `${s.url}i`, text: `${survey}: “${s.question}” (invalid answer)` });
  }
  for (const c of campaigns.data ?? []) add(c.voicemail_audiofile, { key: c.url, text: `${c.name} (voicemail)`, to: `/campaigns/${c.id}` });
  return { uses, pending: sections.isPending || surveys.isPending || campaigns.isPending, error: sections.error ?? surveys.error ?? campaigns.error };
}

function channelsWords(n: number | null): string {
  return n === null ? '–' : n === 1 ? 'mono' : n === 2 ? 'stereo' : String(n);
}

export default function AudioFiles() {
  const client = useQueryClient();
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const [deleting, setDeleting] = useState<AudioFile>();
  const list = useQuery({
    queryKey: ['audio-files', 'page', page],
    queryFn: () => get<Page<AudioFile>>(listPath('audio-files', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  const { uses, pending: usesPending, error: usesError } = useUses();
  const remove = useMutation({
    mutationFn: (f: AudioFile) => del(recordPath('audio-files', f.id)),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['audio-files'] }),
    onSettled: () => setDeleting(undefined),
  });

  return (
    <>
      <div className="page-head">
        <h1>Audio</h1>
      </div>
      <p className="muted">Recorded messages that survey sections play, and campaigns leave as voicemail. WAV, MP3 or OGG; mono or stereo, 8–48 kHz, up to 10 minutes.</p>
      <ErrorMessage error={list.error} />
      <ErrorMessage error={remove.error instanceof ApiError && remove.error.status === 409 ? new Error(`${remove.error.detail ?? 'This file is in use.'}`) : remove.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No audio file yet">
          <p>Upload a recording below; then choose it in a survey section or as a campaign's voicemail.</p>
        </EmptyState>
      ) : (
        <>
          <ul className="cards audio-cards" aria-label={`Audio files, page ${page}`}>
            {list.data.results.map((f) => {
              const used = uses.get(f.id) ?? [];
              return (
                <li key={f.id} className="card">
                  <header>
                    <h3>{f.name}</h3>
                    <span className="kind">
                      <Time value={f.created_date} />
                    </span>
                  </header>
                  <audio controls preload="none" src={`${recordPath('audio-files', f.id)}download/`} aria-label={`Play ${f.name}`} />
                  <dl className="figures">
                    <div>
                      <dt>Duration</dt>
                      <dd>{f.duration === null ? '–' : `${formatDecimal(f.duration)} s`}</dd>
                    </div>
                    <div>
                      <dt>Sample rate</dt>
                      <dd>{f.sample_rate === null ? '–' : `${formatInteger(f.sample_rate)} Hz`}</dd>
                    </div>
                    <div>
                      <dt>Channels</dt>
                      <dd>{channelsWords(f.channels)}</dd>
                    </div>
                  </dl>
                  <div className="used-by">
                    <strong>Used by: </strong>
                    {usesPending ? (
                      '…'
                    ) : usesError ? (
                      <span className="muted">could not be read</span>
                    ) : used.length === 0 ? (
                      <span className="muted">nothing yet</span>
                    ) : (
                      <ul className="uses">
                        {used.map((u) => (
                          <li key={u.key}>{u.to ? <Link to={u.to}>{u.text}</Link> : u.text}</li>
                        ))}
                      </ul>
                    )}
                  </div>
                  <div className="actions">
                    <a className="button" href={`${recordPath('audio-files', f.id)}download/`} download aria-label={`Download ${f.name}`}>
                      Download
                    </a>
                    <button type="button" className="danger" onClick={() => setDeleting(f)} aria-label={`Delete ${f.name}`}>
                      Delete
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
          <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={(p) => setSearch({ page: String(p) })} />
        </>
      )}
      <ErrorMessage error={usesError} />
      <AudioUpload />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete the audio file “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete audio file"
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>The recording is deleted. A file still used by a survey section or a campaign cannot be deleted.</p>
      </ConfirmDialog>
    </>
  );
}
