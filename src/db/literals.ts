// Constants written into the SQL text instead of bound as parameters, where SQLite would otherwise plan a
// statement anew on every execution.
import { sql, type RawBuilder } from 'kysely';

/**
 * A credential kind as an SQL literal, for `.where('kind', '=', kindLiteral('factory_key'))`.
 *
 * Why: the partial index credentials_factory_key_name_live is `where kind = 'factory_key' and revoked_at is
 * null`. When SQLite plans a statement whose WHERE says `kind = ?`, it compares the bound value with that
 * predicate to decide whether the index may be used, and marks the parameter: binding it again (even to the
 * same value) expires the plan, so every execution of a cached statement would be prepared again (the API key
 * list costs about four times as much bound as with the literal). A literal is planned once.
 * Only for constants of the code (the CredentialKind union), never for input.
 */
export function kindLiteral<K extends string>(kind: K): RawBuilder<K> {
  return sql.lit(kind);
}
