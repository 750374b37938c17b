// The closed list of error codes the gateway answers with, and the one error type that carries them.
// Every `error.code` on the wire comes from ERROR_CODES; the OpenAPI document lists them from here.

export const ERROR_CODES = {
  // 400: malformed request
  invalid_request_body: { status: 400, description: 'The JSON body does not match the route schema; see details.' },
  invalid_query_params: {
    status: 400,
    description: 'A query parameter is missing, unknown or out of bounds; see details.',
  },
  invalid_path_params: { status: 400, description: 'A path parameter is malformed; see details.' },
  invalid_json: { status: 400, description: 'The body is not valid JSON.' },
  invalid_otlp: {
    status: 400,
    description: 'The body is not an OTLP export request (protobuf or JSON, as Content-Type says).',
  },
  invalid_cursor: { status: 400, description: 'The pagination cursor is malformed or was not issued by this gateway.' },
  invalid_header: {
    status: 400,
    description: 'A request header holds a value the gateway refuses (a NUL character); see details.',
  },
  invalid_url: {
    status: 400,
    description: 'The URL is not valid percent-encoding or holds a character the gateway refuses.',
  },
  malformed_request: { status: 400, description: 'The request is not well-formed HTTP.' },
  invalid_app_id: { status: 400, description: 'The X-Outerlayer-App-Id header is not a uuid.' },
  app_id_required: {
    status: 400,
    description: 'A login token needs the X-Outerlayer-App-Id header on factory routes.',
  },
  invalid_runner_version: { status: 400, description: 'X-Outerlayer-Runner-Version is not a semantic version.' },
  invalid_date_range: { status: 400, description: 'A window starts after it ends.' },
  pr_filter_unsupported: { status: 400, description: 'The session list cannot filter by pull request.' },
  actor_filter_forbidden: { status: 400, description: 'Actor filters need the sessions.read_team permission.' },
  nothing_to_attach: {
    status: 400,
    description: 'An artifact needs a pull request, a work item or a session to attach to.',
  },
  blob_hash_mismatch: { status: 400, description: 'The sha256 or byte length does not match the decoded bytes.' },
  invalid_link: { status: 400, description: 'A link must be an http or https URL.' },
  duplicate_criterion_id: { status: 400, description: 'Criterion ids must be unique within the list.' },
  invalid_permissions: { status: 400, description: 'An unknown permission or preset was named.' },
  notification_target_refused: {
    status: 400,
    description:
      'The notification URL is not https, or names a private, loopback or reserved address ' +
      '(allowed only with ATTEST_NOTIFY_ALLOW_PRIVATE=1).',
  },
  invalid_time_zone: { status: 400, description: 'The time zone is not an IANA time zone name.' },
  unknown_notification_channel: {
    status: 400,
    description: 'A budget names a notification channel this factory does not have; see channelId.',
  },
  invalid_redirect_uri: {
    status: 400,
    description:
      'A CLI sign-in redirect must be exactly http://127.0.0.1:<port>/<path> (a loopback address, no query).',
  },
  invalid_grant: {
    status: 400,
    description: 'The sign-in code is unknown, used or expired, or its PKCE verifier or redirect URI does not match.',
  },
  authorization_pending: {
    status: 400,
    description: 'The device code is not confirmed yet; ask again after `interval` seconds.',
  },
  slow_down: { status: 400, description: 'The device code was polled too soon; wait `interval` seconds (now longer).' },
  expired_token: { status: 400, description: 'The device code has expired; start `attest login --device` again.' },
  access_denied: { status: 400, description: 'The person at the dashboard refused this device code.' },
  unsupported_media_type: { status: 415, description: 'The request Content-Type is not accepted by this route.' },
  invalid_install_state: {
    status: 400,
    description:
      'The install link state is malformed, was not signed by this gateway, or its factory or user can no longer ' +
      'connect repositories.',
  },
  // 401
  unauthorized: {
    status: 401,
    description:
      'Credential missing, unknown, expired or revoked, or the request names a factory (or, for an OAuth token, ' +
      'a resource) it does not belong to: one answer for all, no oracle.',
  },
  invalid_signature: { status: 401, description: 'A webhook signature did not verify.' },
  // 402
  entitlement_required: {
    status: 402,
    description: 'The org plan lacks the feature; see entitlement, current and limit.',
  },
  // 403
  forbidden: {
    status: 403,
    description: 'The credential lacks required_permission or acts outside what it may reach.',
  },
  creator_not_member: { status: 403, description: 'The member who created this key has left the organization.' },
  invitation_email_mismatch: {
    status: 403,
    description: 'The invitation is for another email address; sign in as the invited address.',
  },
  github_sign_in_required: {
    status: 403,
    description:
      'Binding an App installation needs a dashboard session, signed in with GitHub within the last 8 hours, ' +
      'of the person the install link was issued to.',
  },
  installation_not_reachable: {
    status: 403,
    description: 'The GitHub account you signed in with cannot reach this installation (GET /user/installations).',
  },
  csrf_rejected: {
    status: 403,
    description: 'A state-changing request carrying the dashboard cookie lacks the X-Attest-Dashboard: 1 header.',
  },
  // 404
  route_not_found: { status: 404, description: 'No route matches this method and path.' },
  cli_package_not_built: {
    status: 404,
    description: 'This gateway has no CLI package to serve: `npm run build` on the gateway writes it.',
  },
  org_not_found: { status: 404, description: 'No such organization.' },
  user_not_found: { status: 404, description: 'No such user.' },
  member_not_found: { status: 404, description: 'No such member in this organization.' },
  invitation_not_found: { status: 404, description: 'No such open invitation (unknown, or of another organization).' },
  app_not_found: { status: 404, description: 'No such factory.' },
  device_code_not_found: { status: 404, description: 'No pending device code with this user code.' },
  login_token_not_found: { status: 404, description: 'No live login token with this id.' },
  api_key_not_found: { status: 404, description: 'No such API key in this factory.' },
  work_item_not_found: { status: 404, description: 'No such work item in this factory.' },
  claim_not_found: { status: 404, description: 'No live claim on this work item.' },
  session_not_found: { status: 404, description: 'No such session in this factory.' },
  blob_not_found: { status: 404, description: 'No such blob in this factory.' },
  artifact_not_found: { status: 404, description: 'No such artifact in this factory.' },
  notification_channel_not_found: { status: 404, description: 'No such notification channel in this factory.' },
  notification_delivery_not_found: { status: 404, description: 'No such delivery of this notification channel.' },
  budget_not_found: { status: 404, description: 'No such budget in this factory.' },
  repository_not_found: { status: 404, description: 'No such connected repository in this factory.' },
  pull_request_not_found: { status: 404, description: 'No such pull request known to this factory.' },
  context_not_found: { status: 404, description: 'No such context commit or path.' },
  installation_not_found: { status: 404, description: 'GitHub does not know this installation of the App.' },
  installation_binding_not_found: {
    status: 404,
    description: 'The App installation is not bound to this factory, so there is nothing to unbind.',
  },
  // 410
  session_deleted: {
    status: 410,
    description:
      'The session was deleted (by a person or by the factory retention); `deletedAt` and `reason` say when and how.',
  },
  artifact_deleted: {
    status: 410,
    description:
      'The artifact was deleted (by a person or by the factory retention); `deletedAt` and `reason` say when and how.',
  },
  // 405
  method_not_allowed: { status: 405, description: 'The path exists but not with this method; see the Allow header.' },
  // 409
  conflict: { status: 409, description: 'The request conflicts with the current state.' },
  duplicate_api_key_name: { status: 409, description: 'An API key with this name already exists in the factory.' },
  duplicate_app_name: { status: 409, description: 'A factory with this name already exists in the organization.' },
  duplicate_org_name: { status: 409, description: 'An organization with this name already exists.' },
  duplicate_user_email: { status: 409, description: 'A user with this email already exists.' },
  already_member: { status: 409, description: 'The user is already a member of the organization.' },
  last_owner: { status: 409, description: 'The organization must keep at least one owner.' },
  work_item_claimed: { status: 409, description: 'Another live claim holds this work item.' },
  work_item_withdrawn: { status: 409, description: 'The work item is withdrawn.' },
  claim_has_no_branch: {
    status: 409,
    description: 'The lease names no branch (recorded before claims named a branch).',
  },
  repository_permissions_pending: {
    status: 409,
    description: 'The installation has not accepted the pull request write permission.',
  },
  artifact_content_conflict: { status: 409, description: 'The clientArtifactId was already used for other bytes.' },
  delivery_body_expired: {
    status: 409,
    description: 'The delivery is older than 7 days and its body is no longer kept, so it cannot be sent again.',
  },
  install_state_used: { status: 409, description: 'The install link was already used; each works once.' },
  // 410
  install_state_expired: { status: 410, description: 'The install link has expired; ask for a new one.' },
  invitation_used: { status: 410, description: 'The invitation link was already used; each works once.' },
  invitation_expired: { status: 410, description: 'The invitation link has expired (7 days); ask for a new one.' },
  invitation_revoked: { status: 410, description: 'The invitation was revoked; ask for a new one.' },
  claim_expired: { status: 410, description: 'The work item has no live lease; claim it again.' },
  // 413
  payload_too_large: { status: 413, description: 'The body is larger than the route accepts; see limit (bytes).' },
  // 414
  uri_too_long: {
    status: 414,
    description: 'A path segment is longer than the gateway accepts; see limit (UTF-16 units after decoding).',
  },
  // 416
  range_not_satisfiable: {
    status: 416,
    description: 'The Range header selects no byte of the content; see Content-Range for its length.',
  },
  // 408
  request_timeout: { status: 408, description: 'The request was not received in time.' },
  // 431
  headers_too_large: {
    status: 431,
    description: 'The request line and headers are larger than the gateway accepts (16 KiB).',
  },
  // 422
  work_item_has_no_repository: { status: 422, description: 'The work item names no repository.' },
  repository_not_connected: { status: 422, description: 'The factory has not connected the repository.' },
  installation_not_bound: {
    status: 422,
    description:
      'The App installation is not bound to this factory; bind it through the install link or the operator first.',
  },
  repository_not_in_installation: { status: 422, description: 'The App installation does not include the repository.' },
  branch_has_no_commits: { status: 422, description: 'The branch has nothing the default branch lacks.' },
  branch_not_pushed: { status: 422, description: 'The branch is not on the remote; push it first.' },
  unprocessable: { status: 422, description: 'Well formed but cannot be carried out.' },
  // 426
  runner_upgrade_required: {
    status: 426,
    description: 'The runner is older than the gateway accepts; see minimum and docs.',
  },
  // 429
  rate_limited: { status: 429, description: 'The rate limit of this bucket is reached; wait Retry-After seconds.' },
  // 5xx
  internal_error: { status: 500, description: 'The gateway failed unexpectedly; quote request_id.' },
  store_unavailable: { status: 503, description: 'A data store did not answer; retry after Retry-After seconds.' },
  repository_tokens_unavailable: { status: 503, description: 'The gateway has no code-host App configured.' },
  github_unavailable: { status: 503, description: 'The code host was rate limiting or failing; safe to retry.' },
} as const satisfies Record<string, { status: number; description: string }>;

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
