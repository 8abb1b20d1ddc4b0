/** Upload an audio file: drop it on the zone or choose it with the file input; a name; the progress. */
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, listPath } from '../../api/client.ts';
import { ErrorMessage, Field } from '../../components/ui.tsx';
import { UploadProgress } from '../../components/upload-progress.tsx';
import { upload, type UploadStage } from '../../components/upload.ts';

export function AudioUpload() {
  const client = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File>();
  const [name, setName] = useState('');
  const [over, setOver] = useState(false);
  const [stage, setStage] = useState<UploadStage>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();

  const choose = (f: File | undefined) => {
    setFile(f);
    setDone(undefined);
    setError(undefined);
    // The file's name without its extension, unless a name was typed.
    if (f && !name) setName(f.name.replace(/\.[^.]+$/, ''));
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    choose(e.dataTransfer.files[0]);
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(undefined);
    if (!file) {
      setError(new ApiError(400, { audio_file: ['Choose or drop an audio file first.'] }));
      return;
    }
    const form = new FormData();
    form.append('name', name);
    form.append('audio_file', file, file.name);
    setError(undefined);
    setStage({ stage: 'sending', sent: 0, total: file.size });
    try {
      const answer = await upload<{ name: string }>(listPath('audio-files'), form, setStage);
      setDone(`“${answer.name}” uploaded.`);
      setFile(undefined);
      setName('');
      if (inputRef.current) inputRef.current.value = '';
      void client.invalidateQueries({ queryKey: ['audio-files'] });
    } catch (err) {
      setError(err);
    } finally {
      setStage(undefined);
    }
  }

  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <section className="upload-box" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload an audio file</h2>
      <form onSubmit={submit}>
        <div
          className={`drop-zone${over ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
          data-testid="drop-zone"
        >
          <p>{file ? `Chosen: ${file.name}` : 'Drop a WAV, MP3 or OGG file here, or choose one:'}</p>
          <Field label="Audio file" errors={fields.audio_file}>
            {(p) => <input {...p} ref={inputRef} type="file" name="audio_file" accept="audio/*,.wav,.mp3,.ogg,.opus" onChange={(e) => choose(e.target.files?.[0])} />}
          </Field>
        </div>
        <Field label="Name" hint="How sections and campaigns will list it." errors={fields.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={stage !== undefined}>
            {stage ? 'Uploading…' : 'Upload'}
          </button>
        </div>
      </form>
      <UploadProgress stage={stage} label="Upload progress" />
      {done && <p role="status">{done}</p>}
      {Object.keys(fields).length ? null : <ErrorMessage error={error} />}
    </section>
  );
}
