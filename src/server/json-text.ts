// Answers whose JSON a service has written itself, sent as they are.
import type { FastifyReply } from 'fastify';

const DATA_OPEN = '{"data":';
const DATA_CLOSE = '}';

/**
 * `{"data": <data>}` as one Buffer, `data` being the parts of a JSON value's text (strings, or UTF-8 bytes). For a
 * route whose service splices stored JSON text into its answer (the session list): the route's response schema
 * still documents the shape, and tests hold the text to it, but it is not parsed and serialized again. One
 * Buffer: Fastify sends it as it is, where a string is measured and then encoded.
 */
export function dataJsonBody(data: readonly (string | Uint8Array)[]): Buffer {
  const parts = [DATA_OPEN, ...data, DATA_CLOSE];
  let length = 0;
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) {
    if (typeof part === 'string') at += body.write(part, at);
    else {
      body.set(part, at);
      at += part.length;
    }
  }
  return body;
}

/** Sends a JSON answer's bytes with the content type Fastify gives its own JSON answers. */
export function sendJsonBody(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
