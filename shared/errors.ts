/**
 * The one catalogue of error codes. Every error the API returns is an
 * RFC 9457 problem document carrying one of these stable codes.
 */
export const ERROR_CATALOGUE = {
  invalid_body: { status: 400, title: 'The request is invalid' },
  request_timeout: { status: 408, title: 'The request took too long to arrive' },
  not_found: { status: 404, title: 'Not found' },
  already_exists: { status: 409, title: 'Already exists' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  unauthorized: { status: 401, title: 'Missing or invalid token' },
  forbidden: { status: 403, title: 'Forbidden' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  headers_too_large: { status: 431, title: 'Request line and headers too large' },
  rate_limited: { status: 429, title: 'Too many requests' },
  engine_unavailable: { status: 503, title: 'The container engine is unavailable' },
  storage_busy: { status: 503, title: 'The database is busy' },
  internal: { status: 500, title: 'Internal error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  hint?: string;
}

export function problemType(code: ErrorCode): string {
  return `urn:boxdesk:problem:${code}`;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

/** An expected failure: becomes a problem document, never a 500. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly hint?: string;

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldError[]; hint?: string } = {}) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.errors = options.errors;
    this.hint = options.hint;
  }

  toProblem(): Problem {
    const problem: Problem = {
      type: problemType(this.code),
      title: ERROR_CATALOGUE[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
    if (this.errors && this.errors.length > 0) problem.errors = this.errors;
    if (this.hint) problem.hint = this.hint;
    return problem;
  }

  static fromProblem(problem: Partial<Problem>, status: number): ApiError {
    const code = isErrorCode(problem.code) ? problem.code : status >= 500 ? 'internal' : 'invalid_body';
    return new ApiError(code, problem.detail ?? `HTTP ${status}`, { errors: problem.errors, hint: problem.hint });
  }
}
