// Why a pull request's state reads "unknown" (issue 45 §4): state, merge, revert and CI come from the GitHub App's
// webhooks. Where the factory has no App to hear from, the PR list and page say so and link to the settings page
// that installs it; a PR whose state the CLI reported (gh, at `attest sync`) says where its state came from.
import { Link } from '@tanstack/react-router';

export type GithubAppStatus = 'connected' | 'not_bound' | 'not_configured';

const WHY: Record<Exclude<GithubAppStatus, 'connected'>, string> = {
  not_configured: 'this gateway has no GitHub App configured',
  not_bound: 'the GitHub App is not installed for this factory',
};

export function GithubAppNotice({ appId, status }: { appId: string; status: GithubAppStatus }) {
  if (status === 'connected') return null;
  return (
    <div className="notice" role="note" data-testid="github-app-notice">
      <p>
        A pull request&apos;s state, merge, revert and CI come from the GitHub App, and {WHY[status]}: they read{' '}
        <em>unknown</em> until it is.{' '}
        <Link to="/f/$appId/settings" params={{ appId }} data-testid="github-app-settings-link">
          Install the App on the settings page
        </Link>
        .
      </p>
      <p className="muted">
        Meanwhile <code>attest sync</code> reports the state, merge time and head commit of the pull requests its
        sessions link to, where the GitHub CLI (<code>gh</code>) is installed and logged in.
      </p>
    </div>
  );
}

/** Where a PR's state came from, when it was not the App. */
export function StateSource({ source }: { source: 'github_app' | 'cli' | null }) {
  if (source !== 'cli') return null;
  return (
    <span
      className="chip"
      data-testid="state-source"
      title="Read with gh at attest sync; the GitHub App's webhook replaces it"
    >
      reported by the CLI
    </span>
  );
}
