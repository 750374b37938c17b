// Streamed downloads (CSV and JSON) shared by the areas that export lists. Rows come from an async iterable
// that pages through the store; Readable.from pulls the next row only when the socket drains, so an export
// holds one page in memory whatever its length.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { Literals } from './schemas.js';

export type ExportFormat = 'csv' | 'json';

export const FORMAT_QUERY = Literals(['csv', 'json'], {
  description: 'csv (text/csv, RFC 4180, a header line) or json (application/json, one array). Default csv.',
});

/** The 200 answer of an export route in the OpenAPI document: its media types. */
export function exportResponse(jsonDescription: string) {
  return {
    description: 'A download (Content-Disposition: attachment), streamed.',
    content: {
      'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, UTF-8, CRLF line ends, a header line first.' }) },
      'application/json': { schema: Type.Unknown({ description: jsonDescription }) },
    },
  };
}

export type CsvValue = string | number | boolean | null | undefined;

/**
 * One CSV field. Text that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) gets a
 * leading apostrophe (OWASP's CSV injection advice); a field with a comma, quote or line break is quoted with
 * its quotes doubled. Numbers and booleans are written as they are.
 */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let s = value;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

export interface CsvColumn<T> {
  name: string;
  value(row: T): CsvValue;
}

export async function* csvLines<T>(columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): AsyncGenerator<string> {
  yield csvLine(columns.map((c) => c.name));
  for await (const row of rows) yield csvLine(columns.map((c) => c.value(row)));
}

/** A JSON array written one element at a time. */
export async function* jsonArray<T>(rows: AsyncIterable<T>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const row of rows) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(row)}`;
    first = false;
  }
  yield '\n]\n';
}

function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Send a streamed download. Everything that can fail with a 4xx must have failed before this is called. */
export function sendDownload(
  reply: FastifyReply,
  format: ExportFormat,
  filename: string,
  chunks: AsyncIterable<string>,
): FastifyReply {
  reply.header('Content-Disposition', attachment(`${filename}.${format}`));
  reply.header('Cache-Control', 'private, no-store');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
  return reply.send(Readable.from(chunks, { objectMode: false }));
}
