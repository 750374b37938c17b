// Static serving of the dashboard build (DASHBOARD-CONTRACT.md): hashed assets immutable and pre-compressed,
// index.html for every other non-API GET, the API's JSON 404s untouched, and a gateway without a build.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-3f9a1c.js"></script></head><body><div ' +
  'id="root"></div></body></html>\n';
const JS = `console.log(${JSON.stringify('attest dashboard '.repeat(40))});\n`;
const BR = zlib.brotliCompressSync(Buffer.from(JS));
const GZ = zlib.gzipSync(Buffer.from(JS));

describe('with a dashboard build', () => {
  let gw: TestGateway;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-web-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
    fs.writeFileSync(path.join(dir, 'assets', 'app-3f9a1c.js'), JS);
    fs.writeFileSync(path.join(dir, 'assets', 'app-3f9a1c.js.br'), BR);
    fs.writeFileSync(path.join(dir, 'assets', 'app-3f9a1c.js.gz'), GZ);
    fs.writeFileSync(path.join(dir, 'assets', 'logo-77aa.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    gw = await startGateway({ env: { ATTEST_WEB_DIR: dir } });
  });
  afterAll(async () => {
    await gw?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => gw.app.inject({ method: 'GET', url, headers });

  it('serves a hashed asset pre-compressed by Accept-Encoding, cached for a year as immutable', async () => {
    const br = await get('/assets/app-3f9a1c.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.equals(BR)).toBe(true);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(String(br.headers['content-type'])).toMatch(/^text\/javascript|^application\/javascript/);

    const gz = await get('/assets/app-3f9a1c.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.rawPayload.equals(GZ)).toBe(true);

    const plain = await get('/assets/app-3f9a1c.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(JS);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    // An asset without compressed siblings is sent as it is.
    const svg = await get('/assets/logo-77aa.svg', { 'accept-encoding': 'br' });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-encoding']).toBeUndefined();
  });

  it('a missing asset is the JSON 404, never index.html', async () => {
    const r = await get('/assets/app-000000.js');
    expect(r.statusCode).toBe(404);
    expect(r.json().error.code).toBe('route_not_found');
    const traversal = await get('/assets/..%2findex.html');
    expect(traversal.statusCode).not.toBe(200);
  });

  it('answers index.html (no-cache) for / and every dashboard page, including /artifacts/{id}', async () => {
    for (const url of [
      '/',
      '/sign-in?reason=used',
      '/f/1b7e/sessions?repo=acme%2Fapi',
      '/artifacts/9d1c1f6e-8f0e-4c36-9a59-3f4f1d7c2b10',
      '/o/default',
    ]) {
      const r = await get(url, { 'accept-encoding': 'identity' });
      expect(r.statusCode, url).toBe(200);
      expect(r.body).toBe(INDEX);
      expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
      expect(r.headers['cache-control']).toBe('no-cache');
    }
  });

  it('API paths keep the JSON envelope 404 (never index.html)', async () => {
    for (const url of [
      '/v1/nope',
      '/v1',
      '/oauth/nope',
      '/.well-known/nope',
      '/health/nope',
      '/auth/nope',
      '/mcp',
      '/mcp/x',
    ]) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.json().error.code).toBe('route_not_found');
    }
    const api = await get('/health');
    expect(api.json().data.status).toBe('ok');
  });

  it('an unknown version prefix is the JSON 404, never the page (spec part 9)', async () => {
    for (const url of ['/v2/anything', '/v2', '/v10/hosts?x=1', '/v1/nope']) {
      const r = await get(url, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
      expect(r.statusCode, url).toBe(404);
      expect(String(r.headers['content-type']), url).toMatch(/^application\/json/);
      expect(r.json().error.code, url).toBe('route_not_found');
    }
    // Only the digits make a version: a page path that merely starts with "v" is still a page.
    const page = await get('/vendors', { accept: 'text/html' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(INDEX);
  });

  it('a request that asks for JSON on a page path gets the JSON 404; a browser gets the page', async () => {
    const browser = await get('/f/xyz/sessions', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.statusCode).toBe(200);
    expect(browser.body).toBe(INDEX);
    for (const accept of ['application/json', 'application/problem+json, application/json;q=0.9']) {
      const program = await get('/f/xyz/sessions', { accept });
      expect(program.statusCode, accept).toBe(404);
      expect(program.json().error.code, accept).toBe('route_not_found');
      expect(program.json().error.message, accept).toBe('No route GET /f/xyz/sessions.');
    }
    // Naming HTML beside JSON, or accepting anything, is a browser-like client: it gets the page.
    for (const accept of ['application/json, text/html', '*/*']) {
      expect((await get('/f/xyz/sessions', { accept })).statusCode, accept).toBe(200);
    }
  });

  it('only GET and HEAD fall back to the page: a POST to a page path is the JSON 404', async () => {
    const post = await gw.app.inject({ method: 'POST', url: '/f/x/sessions', payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json().error.code).toBe('route_not_found');
    const head = await gw.app.inject({ method: 'HEAD', url: '/f/x/sessions' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });
});

describe('without a dashboard build', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { ATTEST_WEB_DIR: path.join(os.tmpdir(), 'attest-no-web-here') } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('starts (API only) and / says how to build the dashboard', async () => {
    const r = await gw.app.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
    expect(r.body).toContain('npm run build');
    expect(r.body).toContain('ATTEST_WEB_DIR');
    const api = await gw.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(api.statusCode).toBe(404);
    expect(api.json().error.code).toBe('route_not_found');
    const asset = await gw.app.inject({ method: 'GET', url: '/assets/app.js' });
    expect(asset.statusCode).toBe(404);
    expect(asset.json().error.code).toBe('route_not_found');
  });
});
