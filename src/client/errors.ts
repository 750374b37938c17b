// The one error type the API client throws: the gateway's error envelope `{ error: { code, message, ... } }`
// mapped to fields a caller can branch on, plus the transport failures (gateway down, timeout) as status 0.

/** One problem of a refused request body: the field's dotted path (`name`, `runner_updates.version`), what is wrong. */
export interface ApiErrorDetail {
  path: string;
  message: string;
}

export class ApiClientError extends Error {
  override readonly name = 'ApiClientError';
  /** HTTP status; 0 when no answer came (connection refused, DNS, timeout). */
  readonly status: number;
  /**
   * The gateway's `error.code` (lower_snake_case), or `connection_refused` / `network_error` / `timeout` /
   * `invalid_response`.
   */
  readonly code: string;
  /** Seconds to wait before retrying, from `Retry-After` (429 and some 503s). */
  readonly retryAfter: number | undefined;
  /** Everything else the envelope carried (required_permission, limit, minimum, details, ...). */
  readonly extra: Record<string, unknown>;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    retryAfter?: number;
    extra?: Record<string, unknown>;
    method: string;
    path: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.retryAfter = init.retryAfter;
    this.extra = init.extra ?? {};
    this.method = init.method;
    this.path = init.path;
  }

  /** The per-field problems of a 400 (the envelope's `details`), so a form can show each next to its field. */
  get details(): ApiErrorDetail[] {
    const raw = this.extra.details;
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((d: unknown) => {
      const o = (d ?? {}) as { path?: unknown; message?: unknown };
      return typeof o.path === 'string' && typeof o.message === 'string' ? [{ path: o.path, message: o.message }] : [];
    });
  }

  /**
   * True for failures worth retrying unchanged: no answer (timeout, reset), 5xx, 429. A refused connection
   * is not: nothing listens there, and waiting seconds between attempts only delays saying so.
   */
  get retryable(): boolean {
    if (this.status === 0) return this.code !== 'connection_refused';
    return this.status === 429 || this.status >= 500;
  }
}

/** Seconds from a Retry-After value (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isFinite(at)) return Math.max(0, Math.ceil((at - nowMs) / 1000));
  return undefined;
}
