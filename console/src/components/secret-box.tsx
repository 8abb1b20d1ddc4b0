/** A secret the API shows once (a webhook's secret, an API token's key): a clear "copy it now" box. */
import { useState, type ReactNode } from 'react';
import './admin.css';

export function SecretBox({ title, value, children, onDone }: { title: string; value: string; children?: ReactNode; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <section className="secret-box" role="alert" aria-label={title}>
      <h2>{title}</h2>
      <p>
        <strong>Copy it now:</strong> it is shown this once and cannot be read again.
      </p>
      <div className="secret">
        <input aria-label={title} readOnly value={value} data-testid="secret" autoFocus onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
      {children}
    </section>
  );
}
