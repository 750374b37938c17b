// Answers whose JSON a service has written itself, sent as they are.
import type { FastifyReply } from 'fastify';

const DATA_OPEN = Buffer.from('{"data":');
const DATA_CLOSE = Buffer.from('}');

/**
 * Sends `{"data": <data>}`, `data` being the UTF-8 chunks of a JSON value, with the content type Fastify gives
 * its own JSON answers. For a route whose service splices stored JSON text into its answer (the session list):
 * the route's response schema still documents the shape, and tests hold the text to it, but it is not parsed
 * and serialized again. One Buffer: Fastify sends it as it is, where a string is measured and then encoded.
 */
export function sendDataJson(reply: FastifyReply, data: readonly Uint8Array[]): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(Buffer.concat([DATA_OPEN, ...data, DATA_CLOSE]));
}
