import { ApiError, type ErrorCode, type FieldError } from '../../../shared/errors';
import type { Token } from '../../../shared/schemas/system';

/** Whether the caller may see resources of `project`. */
export type Sees = (project: string) => boolean;

/** A project-restricted token sees only its own project; any other token sees every project. */
export function seesFor(token: Token | null): Sees {
  return (project) => !token?.project || token.project === project;
}

/**
 * A refusal that names resources of other projects (a domain another project's box holds, the
 * boxes that still need a snapshot). Its detail is written for the token that asked: a token
 * restricted to one project learns the names of its own project's resources only, and "in
 * another project" for the rest. The error handler (http/problems.ts) renders it for the
 * request's token; the text here is what an unrestricted token reads.
 */
export class ProjectScopedError extends ApiError {
  constructor(
    code: ErrorCode,
    private readonly detailFor: (sees: Sees) => string,
    options: { errors?: FieldError[]; hint?: string } = {},
  ) {
    super(
      code,
      detailFor(() => true),
      options,
    );
  }

  /** The same refusal, worded for `token`. */
  for(token: Token | null): ApiError {
    return new ApiError(this.code, this.detailFor(seesFor(token)), { errors: this.errors, hint: this.hint });
  }
}
