/** An upload's bar (its share while the file is sent; indeterminate while the server works) and its stage in words. */
import { uploadLabel, type UploadStage } from './upload.ts';

export function UploadProgress({ stage, label }: { stage: UploadStage | undefined; label: string }) {
  if (!stage) return null;
  return (
    <div className="upload-progress">
      <progress
        aria-label={label}
        max={stage.stage === 'sending' && stage.total ? stage.total : undefined}
        value={stage.stage === 'sending' && stage.total ? stage.sent : undefined}
      />
      <span role="status">{uploadLabel(stage)}</span>
    </div>
  );
}
