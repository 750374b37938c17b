// The closed list of error codes the gateway answers with, and the one error type that carries them.
// Every `error.code` on the wire comes from ERROR_CODES; the OpenAPI document lists them from here.

/** The codes that share one HTTP status, written `code: description`. */
function withStatus<const S extends number, const T extends Record<string, string>>(
  status: S,
  codes: T,
): { [K in keyof T]: { status: S; description: T[K] } } {
  const out: Record<string, { status: S; description: string }> = {};
  for (const [code, description] of Object.entries(codes)) out[code] = { status, description };
  return out as { [K in keyof T]: { status: S; description: T[K] } };
}

export const ERROR_CODES = {
  ...withStatus(400, {
    invalid_request_body: 'The JSON body does not match the route schema; see details.',
    invalid_query_params: 'A query parameter is missing, unknown or out of bounds; see details.',
    invalid_path_params: 'A path parameter is malformed; see details.',
    invalid_json: 'The body is not valid JSON.',
    invalid_otlp: 'The body is not an OTLP export request (protobuf or JSON, as Content-Type says).',
    invalid_cursor: 'The pagination cursor is malformed or was not issued by this gateway.',
    invalid_header: 'A request header holds a value the gateway refuses (a NUL character); see details.',
    invalid_url: 'The URL is not valid percent-encoding or holds a character the gateway refuses.',
    malformed_request: 'The request is not well-formed HTTP.',
    invalid_app_id: 'The X-Outerlayer-App-Id header is not a uuid.',
    app_id_required: 'A login token needs the X-Outerlayer-App-Id header on factory routes.',
    invalid_runner_version: 'X-Outerlayer-Runner-Version is not a semantic version.',
    invalid_date_range: 'A window starts after it ends.',
    pr_filter_unsupported: 'The session list cannot filter by pull request.',
    actor_filter_forbidden: 'Actor filters need the sessions.read_team permission.',
    nothing_to_attach: 'An artifact needs a pull request, a work item or a session to attach to.',
    blob_hash_mismatch: 'The sha256 or byte length does not match the decoded bytes.',
    invalid_link: 'A link must be an http or https URL.',
    duplicate_criterion_id: 'Criterion ids must be unique within the list.',
    invalid_permissions: 'An unknown permission or preset was named.',
    notification_target_refused:
      'The notification URL is not https, or names a private, loopback or reserved address ' +
      '(allowed only with ATTEST_NOTIFY_ALLOW_PRIVATE=1).',
    invalid_time_zone: 'The time zone is not an IANA time zone name.',
    unknown_notification_channel: 'A budget names a notification channel this factory does not have; see channelId.',
    invalid_redirect_uri:
      'A CLI sign-in redirect must be exactly http://127.0.0.1:<port>/<path> (a loopback address, no query).',
    invalid_grant: 'The sign-in code is unknown, used or expired, or its PKCE verifier or redirect URI does not match.',
    authorization_pending: 'The device code is not confirmed yet; ask again after `interval` seconds.',
    slow_down: 'The device code was polled too soon; wait `interval` seconds (now longer).',
    expired_token: 'The device code has expired; start `attest login --device` again.',
    access_denied: 'The person at the dashboard refused this device code.',
  }),
  ...withStatus(415, {
    unsupported_media_type: 'The request Content-Type is not accepted by this route.',
  }),
  ...withStatus(400, {
    invalid_install_state:
      'The install link state is malformed, was not signed by this gateway, or its factory or user can no longer ' +
      'connect repositories.',
  }),
  ...withStatus(401, {
    unauthorized:
      'Credential missing, unknown, expired or revoked, or the request names a factory (or, for an OAuth token, ' +
      'a resource) it does not belong to: one answer for all, no oracle.',
    invalid_signature: 'A webhook signature did not verify.',
  }),
  ...withStatus(402, {
    entitlement_required: 'The org plan lacks the feature; see entitlement, current and limit.',
  }),
  ...withStatus(403, {
    forbidden: 'The credential lacks required_permission or acts outside what it may reach.',
    creator_not_member: 'The member who created this key has left the organization.',
    invitation_email_mismatch: 'The invitation is for another email address; sign in as the invited address.',
    github_sign_in_required:
      'Binding an App installation needs a dashboard session, signed in with GitHub within the last 8 hours, ' +
      'of the person the install link was issued to.',
    installation_not_reachable:
      'The GitHub account you signed in with cannot reach this installation (GET /user/installations).',
    csrf_rejected: 'A state-changing request carrying the dashboard cookie lacks the X-Attest-Dashboard: 1 header.',
  }),
  ...withStatus(404, {
    route_not_found: 'No route matches this method and path.',
    cli_package_not_built: 'This gateway has no CLI package to serve: `npm run build` on the gateway writes it.',
    org_not_found: 'No such organization.',
    user_not_found: 'No such user.',
    member_not_found: 'No such member in this organization.',
    invitation_not_found: 'No such open invitation (unknown, or of another organization).',
    app_not_found: 'No such factory.',
    device_code_not_found: 'No pending device code with this user code.',
    login_token_not_found: 'No live login token with this id.',
    api_key_not_found: 'No such API key in this factory.',
    work_item_not_found: 'No such work item in this factory.',
    claim_not_found: 'No live claim on this work item.',
    session_not_found: 'No such session in this factory.',
    blob_not_found: 'No such blob in this factory.',
    artifact_not_found: 'No such artifact in this factory.',
    notification_channel_not_found: 'No such notification channel in this factory.',
    notification_delivery_not_found: 'No such delivery of this notification channel.',
    budget_not_found: 'No such budget in this factory.',
    repository_not_found: 'No such connected repository in this factory.',
    pull_request_not_found: 'No such pull request known to this factory.',
    context_not_found: 'No such context commit or path.',
    installation_not_found: 'GitHub does not know this installation of the App.',
    installation_binding_not_found: 'The App installation is not bound to this factory, so there is nothing to unbind.',
  }),
  ...withStatus(410, {
    session_deleted:
      'The session was deleted (by a person or by the factory retention); `deletedAt` and `reason` say when and how.',
    artifact_deleted:
      'The artifact was deleted (by a person or by the factory retention); `deletedAt` and `reason` say when and how.',
  }),
  ...withStatus(405, {
    method_not_allowed: 'The path exists but not with this method; see the Allow header.',
  }),
  ...withStatus(409, {
    conflict: 'The request conflicts with the current state.',
    duplicate_api_key_name: 'An API key with this name already exists in the factory.',
    duplicate_app_name: 'A factory with this name already exists in the organization.',
    duplicate_org_name: 'An organization with this name already exists.',
    duplicate_user_email: 'A user with this email already exists.',
    already_member: 'The user is already a member of the organization.',
    last_owner: 'The organization must keep at least one owner.',
    work_item_claimed: 'Another live claim holds this work item.',
    work_item_withdrawn: 'The work item is withdrawn.',
    claim_has_no_branch: 'The lease names no branch (recorded before claims named a branch).',
    repository_permissions_pending: 'The installation has not accepted the pull request write permission.',
    artifact_content_conflict: 'The clientArtifactId was already used for other bytes.',
    delivery_body_expired:
      'The delivery is older than 7 days and its body is no longer kept, so it cannot be sent again.',
    install_state_used: 'The install link was already used; each works once.',
  }),
  ...withStatus(410, {
    install_state_expired: 'The install link has expired; ask for a new one.',
    invitation_used: 'The invitation link was already used; each works once.',
    invitation_expired: 'The invitation link has expired (7 days); ask for a new one.',
    invitation_revoked: 'The invitation was revoked; ask for a new one.',
    claim_expired: 'The work item has no live lease; claim it again.',
  }),
  ...withStatus(413, {
    payload_too_large: 'The body is larger than the route accepts; see limit (bytes).',
  }),
  ...withStatus(414, {
    uri_too_long: 'A path segment is longer than the gateway accepts; see limit (UTF-16 units after decoding).',
  }),
  ...withStatus(416, {
    range_not_satisfiable: 'The Range header selects no byte of the content; see Content-Range for its length.',
  }),
  ...withStatus(408, {
    request_timeout: 'The request was not received in time.',
  }),
  ...withStatus(431, {
    headers_too_large: 'The request line and headers are larger than the gateway accepts (16 KiB).',
  }),
  ...withStatus(422, {
    work_item_has_no_repository: 'The work item names no repository.',
    repository_not_connected: 'The factory has not connected the repository.',
    installation_not_bound:
      'The App installation is not bound to this factory; bind it through the install link or the operator first.',
    repository_not_in_installation: 'The App installation does not include the repository.',
    branch_has_no_commits: 'The branch has nothing the default branch lacks.',
    branch_not_pushed: 'The branch is not on the remote; push it first.',
    unprocessable: 'Well formed but cannot be carried out.',
  }),
  ...withStatus(426, {
    runner_upgrade_required: 'The runner is older than the gateway accepts; see minimum and docs.',
  }),
  ...withStatus(429, {
    rate_limited: 'The rate limit of this bucket is reached; wait Retry-After seconds.',
  }),
  ...withStatus(500, {
    internal_error: 'The gateway failed unexpectedly; quote request_id.',
  }),
  ...withStatus(503, {
    store_unavailable: 'A data store did not answer; retry after Retry-After seconds.',
    repository_tokens_unavailable: 'The gateway has no code-host App configured.',
    github_unavailable: 'The code host was rate limiting or failing; safe to retry.',
  }),
} satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorExtra = Record<string, unknown>;

/** The one error type services throw; the error handler maps it to the envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly extra: ErrorExtra;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message?: string,
    extra: ErrorExtra = {},
    headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CODES[code].description);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

/** Shorthand for an error whose status is the code's usual one. */
export function apiError(
  code: ErrorCode,
  message?: string,
  extra?: ErrorExtra,
  headers?: Record<string, string>,
): ApiError {
  return new ApiError(ERROR_CODES[code].status, code, message, extra, headers);
}

export function notFound(code: ErrorCode & `${string}_not_found`, message?: string): ApiError {
  return apiError(code, message);
}
