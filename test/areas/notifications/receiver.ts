// A real HTTP receiver for notification tests, on 127.0.0.1 and a free port: it records every request, checks
// a webhook's X-Attest-Signature with its own code (HMAC-SHA256 of "<t>.<body>" under the secret the test
// gives it), and answers with the statuses the test queues (200 once the queue is empty).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** null: no secret set for the path; true/false: the signature checked against it. */
  signatureValid: boolean | null;
  json: unknown;
}

export class Receiver {
  readonly received: Received[] = [];
  private readonly statuses: number[] = [];
  private readonly secrets = new Map<string, string>();
  private server: http.Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const secret = this.secrets.get(path);
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
        this.received.push({
          path,
          headers: req.headers,
          body,
          signatureValid:
            secret === undefined ? null : verify(secret, String(req.headers['x-attest-signature'] ?? ''), body),
          json,
        });
        const status = this.statuses.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 200 ? 'ok' : `failing with ${status}`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next answers, in order (then 200 again). */
  answer(...statuses: number[]): void {
    this.statuses.push(...statuses);
  }

  expectSecret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The receiver's own check of `t=<unix s>,v1=<hex>`: HMAC-SHA256 over "<t>.<body>", compared in constant time. */
export function verify(secret: string, header: string, body: string): boolean {
  const parts = new Map(header.split(',').map((kv) => kv.split('=', 2) as [string, string]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !v1 || !/^\d+$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
  return crypto.timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
