/** The sign-in form: a username and password for POST /rest-api/session/. */
import { useState, type FormEvent } from 'react';
import { ApiError } from './api/client.ts';
import { useSession } from './api/session.tsx';
import { Field } from './components/ui.tsx';

function messageOf(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 401) return 'Wrong username or password.';
    if (err.status === 429) {
      const wait = err.retryAfter ? ` Try again in ${Math.ceil(err.retryAfter / 60)} minute${err.retryAfter > 60 ? 's' : ''}.` : ' Try again later.';
      return `Too many failed attempts for this username.${wait}`;
    }
    if (err.status === 400) return Object.values(err.fields).flat().join(' ') || err.message;
    return err.detail ?? err.message;
  }
  return 'The server cannot be reached. Check that it runs, then try again.';
}

export function SignIn() {
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(username, password);
    } catch (err) {
      setError(messageOf(err));
      setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Campaign Dialer</h1>
        <p>Sign in to the operators’ console.</p>
        {error && (
          <p role="alert" className="error-banner">
            {error}
          </p>
        )}
        <Field label="Username">
          {(p) => <input {...p} name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />}
        </Field>
        <Field label="Password">
          {(p) => (
            <input {...p} name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          )}
        </Field>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
