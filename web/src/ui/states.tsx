// Loading, error and "not found" views shared by every page.
import { Link, type ErrorComponentProps } from '@tanstack/react-router';
import { ApiClientError } from '../api/client';

export function Loading() {
  return (
    <p className="muted" role="status">
      Loading…
    </p>
  );
}

export function ErrorView({ error }: ErrorComponentProps | { error: unknown }) {
  if (error instanceof ApiClientError && error.status === 401) {
    return (
      <div className="card narrow">
        <h1>Signed out</h1>
        <p>
          Your dashboard session has ended. <Link to="/sign-in">Sign in again</Link>.
        </p>
      </div>
    );
  }
  if (error instanceof ApiClientError && error.status === 404) return <NotFound what={error.message} />;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="card" role="alert">
      <h1>Something went wrong</h1>
      <p className="error-text">{error instanceof ApiClientError ? `${error.code}: ${message}` : message}</p>
    </div>
  );
}

export function NotFound({ what }: { what?: string }) {
  return (
    <div className="card narrow" role="alert">
      <h1>Not found</h1>
      <p className="muted">{what ?? 'There is nothing at this address, or it belongs to a factory you cannot read.'}</p>
      <p>
        <Link to="/">Back to your factories</Link>
      </p>
    </div>
  );
}
