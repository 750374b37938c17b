// A test double of S3: a real HTTP server speaking the path-style object routes the AWS SDK sends for
// PutObject, GetObject, HeadObject and DeleteObject (`PUT|GET|HEAD|DELETE /<bucket>/<key>?x-id=...`), with
// S3's status codes and XML error bodies (NoSuchKey, NoSuchBucket, AccessDenied, InvalidAccessKeyId,
// SignatureDoesNotMatch, XAmzContentSHA256Mismatch). Every request must carry a valid AWS Signature V4
// (header form) for the configured key pair; the signature is recomputed here independently of the SDK.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3DoubleOptions {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
}

export interface StoredObject {
  bytes: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  status: number;
}

export interface S3Double {
  /** http://127.0.0.1:<port> — the S3_ENDPOINT to configure. */
  url: string;
  /** Objects of the configured bucket by key; tests read and tamper with them directly. */
  objects: Map<string, StoredObject>;
  /** Every request answered, in order. */
  requests: S3Request[];
  /** Answer the next `times` requests with this S3 error, whatever they ask (for failure tests). */
  failNext(code: keyof typeof XML_ERRORS, times: number): void;
  close(): Promise<void>;
}

const XML_ERRORS = {
  NoSuchKey: [404, 'The specified key does not exist.'],
  NoSuchBucket: [404, 'The specified bucket does not exist'],
  AccessDenied: [403, 'Access Denied'],
  InvalidAccessKeyId: [403, 'The AWS Access Key Id you provided does not exist in our records.'],
  SignatureDoesNotMatch: [
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  ],
  XAmzContentSHA256Mismatch: [400, "The provided 'x-amz-content-sha256' header does not match what was computed."],
  AuthorizationHeaderMalformed: [400, 'The authorization header is malformed.'],
  InternalError: [500, 'We encountered an internal error. Please try again.'],
  SlowDown: [503, 'Please reduce your request rate.'],
  MethodNotAllowed: [405, 'The specified method is not allowed against this resource.'],
  NotImplemented: [501, 'A header you provided implies functionality that is not implemented'],
} as const satisfies Record<string, readonly [number, string]>;

type ErrorCode = keyof typeof XML_ERRORS;

class S3Error extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly resource: string,
  ) {
    super(XML_ERRORS[code][1]);
  }
}

const sha256Hex = (data: string | Buffer) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => crypto.createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 canonical query strings require. */
function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, '%20'));
      return [rfc3986(name), rfc3986(value)] as const;
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

const AUTH = new RegExp(
  String.raw`^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request,` +
    String.raw`\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$`,
);

/** Checks the SigV4 Authorization header and the payload hash; throws the S3 error S3 would answer. */
function verifySignature(
  req: http.IncomingMessage,
  rawPath: string,
  rawQuery: string,
  body: Buffer,
  opts: Required<S3DoubleOptions>,
  resource: string,
): void {
  const authorization = req.headers.authorization;
  if (!authorization) throw new S3Error('AccessDenied', resource);
  const match = AUTH.exec(authorization);
  if (!match) throw new S3Error('AuthorizationHeaderMalformed', resource);
  const [, accessKeyId, date, region, signedHeaderList, signature] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (accessKeyId !== opts.accessKeyId) throw new S3Error('InvalidAccessKeyId', resource);
  if (region !== opts.region) throw new S3Error('AuthorizationHeaderMalformed', resource);

  const amzDate = req.headers['x-amz-date'];
  const payloadHash = req.headers['x-amz-content-sha256'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date) || typeof payloadHash !== 'string')
    throw new S3Error('AccessDenied', resource);
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body))
    throw new S3Error('XAmzContentSHA256Mismatch', resource);

  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) throw new S3Error('AccessDenied', resource);
  const canonicalHeaders = signedHeaders
    .map((name) => {
      const value = req.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  // S3 signs the path exactly as sent (no second URI-encoding, no normalisation).
  const canonicalRequest = [
    req.method,
    rawPath,
    canonicalQuery(rawQuery),
    canonicalHeaders,
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${opts.secretAccessKey}`, date), region), 's3'), 'aws4_request');
  const expected = hmac(signingKey, stringToSign).toString('hex');
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    throw new S3Error('SignatureDoesNotMatch', resource);
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function startS3Double(options: S3DoubleOptions): Promise<S3Double> {
  const opts: Required<S3DoubleOptions> = { region: 'us-east-1', ...options };
  const objects = new Map<string, StoredObject>();
  const requests: S3Request[] = [];
  const faults: { code: ErrorCode; left: number } = { code: 'InternalError', left: 0 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const rawPath = q < 0 ? url : url.slice(0, q);
      const rawQuery = q < 0 ? '' : url.slice(q + 1);
      const slash = rawPath.indexOf('/', 1);
      const bucket = decodeURIComponent(slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash));
      const key = slash < 0 ? '' : decodeURIComponent(rawPath.slice(slash + 1));
      const requestId = crypto.randomBytes(8).toString('hex').toUpperCase();
      res.setHeader('x-amz-request-id', requestId);
      res.setHeader('Server', 'AmazonS3');

      const answer = (status: number): void => {
        requests.push({ method: req.method ?? '', bucket, key, status });
      };
      try {
        if (faults.left > 0) {
          faults.left -= 1;
          throw new S3Error(faults.code, rawPath);
        }
        verifySignature(req, rawPath, rawQuery, body, opts, rawPath);
        if (bucket !== opts.bucket) throw new S3Error('NoSuchBucket', `/${bucket}`);
        if (!key) throw new S3Error('NotImplemented', rawPath);
        switch (req.method) {
          case 'PUT': {
            if (req.headers['x-amz-copy-source']) throw new S3Error('NotImplemented', rawPath);
            const etag = `"${crypto.createHash('md5').update(body).digest('hex')}"`;
            const contentType = req.headers['content-type'] ?? 'binary/octet-stream';
            objects.set(key, { bytes: body, contentType, etag, lastModified: new Date() });
            res.writeHead(200, { ETag: etag, 'Content-Length': '0' });
            res.end();
            answer(200);
            return;
          }
          case 'GET':
          case 'HEAD': {
            const object = objects.get(key);
            if (!object) throw new S3Error('NoSuchKey', rawPath);
            res.writeHead(200, {
              ETag: object.etag,
              'Content-Type': object.contentType,
              'Content-Length': String(object.bytes.length),
              'Last-Modified': object.lastModified.toUTCString(),
              'Accept-Ranges': 'bytes',
            });
            res.end(req.method === 'GET' ? object.bytes : undefined);
            answer(200);
            return;
          }
          case 'DELETE':
            // S3 answers 204 whether or not the key existed.
            objects.delete(key);
            res.writeHead(204);
            res.end();
            answer(204);
            return;
          default:
            throw new S3Error('MethodNotAllowed', rawPath);
        }
      } catch (err) {
        if (!(err instanceof S3Error)) throw err;
        const [status, message] = XML_ERRORS[err.code];
        answer(status);
        // HEAD answers carry no body; the SDK then names the error after the status (NotFound, Forbidden).
        if (req.method === 'HEAD') {
          res.writeHead(status);
          res.end();
          return;
        }
        const extra =
          err.code === 'NoSuchKey'
            ? `<Key>${xmlEscape(key)}</Key>`
            : err.code === 'NoSuchBucket'
              ? `<BucketName>${xmlEscape(bucket)}</BucketName>`
              : '';
        const xml =
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${xmlEscape(message)}` +
          `</Message>${extra}<Resource>${xmlEscape(err.resource)}</Resource><RequestId>${requestId}` +
          `</RequestId></Error>`;
        res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(xml)) });
        res.end(xml);
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    requests,
    failNext: (code, times) => {
      faults.code = code;
      faults.left = times;
    },
    /** Stops answering; closing twice is harmless (a test may stop the double before afterAll). */
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        // The SDK keeps connections alive; drop them so the port really stops answering.
        server.closeAllConnections();
      }),
  };
}
