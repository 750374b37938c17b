import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';
import { VERDICTS, type Verdict } from '../../ui/verdict';

// Every query parameter of the route is optional, so the generated query type is optional too.
export type PrsQuery = NonNullable<paths['/v1/prs/outcomes']['get']['parameters']['query']>;
export interface PrsSearch {
  repo?: string;
  state?: PrsQuery['state'];
  /** One verdict or several, comma-separated, as GET /v1/prs/outcomes takes `verdict=`. */
  verdict?: string;
  offset?: number;
}
export const PRS_PAGE = 50;
const STATES = ['open', 'closed', 'merged', 'unknown'] as const;

export function parsePrsSearch(s: Record<string, unknown>): PrsSearch {
  const out: PrsSearch = {};
  if (typeof s.repo === 'string' && s.repo !== '') out.repo = s.repo;
  if (typeof s.state === 'string' && (STATES as readonly string[]).includes(s.state))
    out.state = s.state as PrsSearch['state'];
  if (typeof s.verdict === 'string') {
    const known = [...new Set(s.verdict.split(','))].filter((v): v is Verdict =>
      (VERDICTS as readonly string[]).includes(v),
    );
    if (known.length > 0) out.verdict = known.join(',');
  }
  const offset = typeof s.offset === 'number' ? s.offset : Number(s.offset);
  if (Number.isInteger(offset) && offset > 0) out.offset = offset;
  return out;
}

export const prsQuery = (appId: string, search: PrsSearch) =>
  queryOptions({
    queryKey: ['prs', appId, search],
    queryFn: () =>
      unwrap(
        api.GET('/v1/prs/outcomes', {
          params: {
            query: {
              limit: PRS_PAGE,
              offset: search.offset ?? 0,
              ...(search.repo ? { repo: search.repo } : {}),
              ...(search.state ? { state: search.state } : {}),
              ...(search.verdict ? { verdict: search.verdict } : {}),
            },
          },
          ...factory(appId),
        }),
      ),
  });
