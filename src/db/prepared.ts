// Queries of a fixed shape, compiled once per store and run with new values: Kysely builds and compiles a
// query's operation tree on every call otherwise (about 5% of the CPU of GET /v1/api-keys in a profile).
import { CompiledQuery, type Compilable } from 'kysely';
import { directReaderOf, type Db } from './connection.js';

/** Where each parameter of the compiled SQL comes from: an argument's position, or a constant of the builder. */
type Slot = number | { readonly value: unknown };

interface Template {
  readonly sql: string;
  readonly query: CompiledQuery['query'];
  readonly queryId: CompiledQuery['queryId'];
  readonly slots: readonly Slot[];
}

/**
 * What a prepared query's arguments may be: values bound as they are. A number is compiled with a string
 * marker in its place (the builder must not look at it, only bind it; the marker never reaches the store).
 */
type Argument = string | number;

/** A string no caller passes (NUL is refused at the edge): marks where argument `i` lands among the parameters. */
const sentinel = (i: number): string => `\u0000prepared-argument-${i}\u0000`;

function templateOf<A extends Argument[]>(
  db: Db,
  build: (db: Db, ...args: A) => Compilable<unknown>,
  arity: number,
): Template | null {
  const markers = Array.from({ length: arity }, (_, i) => sentinel(i));
  const compiled = build(db, ...(markers as A)).compile();
  if (compiled.sql.includes('\u0000')) return null; // an argument went into the SQL text itself
  const seen = new Set<number>();
  const slots = compiled.parameters.map((value): Slot => {
    const index = typeof value === 'string' ? markers.indexOf(value) : -1;
    if (index < 0) return { value };
    seen.add(index);
    return index;
  });
  // An argument the builder transformed (or dropped) cannot be placed: such a query is compiled per call.
  if (seen.size !== arity) return null;
  return { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, slots };
}

/**
 * `build` must give the same query shape whatever its arguments are (no branching on them, no
 * transforming them): each argument must reach the SQL as one bound parameter, as it is. A builder that
 * breaks this is detected when it does so with the marker values (then it is compiled on every call, as
 * before), not when it branches on a value; so keep such builders to a straight chain of `where(col, op, arg)`.
 * Templates are per store (SQLite and PostgreSQL compile differently) and per transaction object.
 */
export function preparedQuery<A extends Argument[], R>(
  arity: A['length'],
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  const templates = new WeakMap<Db, Template | null>();
  return async (db, ...args) => {
    let template = templates.get(db);
    if (template === undefined) {
      template = templateOf(db, build as (db: Db, ...args: A) => Compilable<unknown>, arity);
      templates.set(db, template);
    }
    if (template === null) return (await db.executeQuery(build(db, ...args))).rows;
    const parameters = template.slots.map((slot) => (typeof slot === 'number' ? args[slot] : slot.value));
    // SQLite outside a transaction: at once, not through Kysely's queue (connection.ts, directReaderOf).
    const direct = directReaderOf(db)?.(template.sql, parameters);
    if (direct) return direct as R[];
    const compiled: CompiledQuery<R> = {
      sql: template.sql,
      parameters,
      query: template.query,
      queryId: template.queryId,
    };
    return (await db.executeQuery(compiled)).rows;
  };
}

/**
 * A read written as SQL text by hand (`?` placeholders on SQLite, `$n` on PostgreSQL; see inList): on SQLite
 * outside a transaction at once, as a prepared query runs; otherwise through Kysely. For the reads of every
 * list request whose shape varies with their values (IN lists), where building and compiling a Kysely query
 * cost more than SQLite took to answer it.
 */
export async function readRows<R>(db: Db, text: string, parameters: readonly unknown[]): Promise<R[]> {
  const direct = directReaderOf(db)?.(text, parameters);
  if (direct) return direct as R[];
  return (await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows;
}

/**
 * `(p1, p2, ...)` for `values`, bound after the parameters already in `parameters` (which it extends): `?` on
 * SQLite, `$n` on PostgreSQL.
 */
export function inList(postgres: boolean, parameters: unknown[], values: readonly unknown[]): string {
  const marks = values.map((v) => {
    parameters.push(v);
    return postgres ? `$${parameters.length}` : '?';
  });
  return `(${marks.join(', ')})`;
}

/** A function that binds a value after those already in `parameters` (which it extends) and gives its placeholder. */
export function binder(postgres: boolean, parameters: unknown[]): (value: unknown) => string {
  return (value) => {
    parameters.push(value);
    return postgres ? `$${parameters.length}` : '?';
  };
}

/**
 * SQL of an aggregate of rows as one JSON array of arrays (`row` is the comma list of each array's values, `order`
 * an optional `order by ...` of the aggregate), `[]` for no rows: a set read as one value instead of row by row and
 * value by value (each a call across N-API on SQLite, a parsed field on PostgreSQL). Read back with jsonRows.
 */
export function jsonRowsAggregate(postgres: boolean, row: string, order = ''): string {
  return postgres
    ? `coalesce(json_agg(json_build_array(${row}) ${order}), '[]'::json)`
    : `json_group_array(json_array(${row}) ${order})`;
}

/** The arrays of a jsonRowsAggregate value: PostgreSQL's driver has parsed its json already, SQLite's is text. */
export function jsonRows(value: unknown): unknown[][] {
  return (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as unknown[][];
}
