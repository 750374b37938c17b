// Files the gateway hands to its users' machines: `GET /downloads/attest-cli.tgz`, the light `attest` package
// `npm run build` writes (scripts/cli-package.ts), so `npm install -g <gateway>/downloads/attest-cli.tgz`
// installs the CLI with no registry. The file is looked up on each request (a rebuild needs no restart); its
// URL never changes, so it is sent `no-cache` with a strong ETag of its content and revalidated with a 304.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { apiError } from './errors.js';
import type { App } from './context.js';

export const CLI_PACKAGE_PATH = '/downloads/attest-cli.tgz';

interface Tagged {
  mtimeMs: number;
  size: number;
  etag: string;
}

export function registerDownloads(app: App, cliPackage: string): void {
  let tagged: Tagged | null = null;

  /** The package's ETag, hashed again only when the file changed. */
  async function etagOf(stat: fs.Stats): Promise<string> {
    if (tagged && tagged.mtimeMs === stat.mtimeMs && tagged.size === stat.size) return tagged.etag;
    const hash = crypto.createHash('sha256');
    for await (const chunk of fs.createReadStream(cliPackage)) hash.update(chunk as Buffer);
    const etag = `"${hash.digest('base64url').slice(0, 27)}"`;
    tagged = { mtimeMs: stat.mtimeMs, size: stat.size, etag };
    return etag;
  }

  app.get(
    CLI_PACKAGE_PATH,
    { config: { guard: { credentials: 'public' } }, schema: { hide: true } },
    async (req, reply) => {
      const stat = await fs.promises.stat(cliPackage).catch(() => null);
      if (!stat?.isFile()) {
        throw apiError(
          'cli_package_not_built',
          'This gateway has no CLI package to serve: run `npm run build` on the gateway ' +
            '(it writes dist/attest-cli.tgz).',
        );
      }
      const etag = await etagOf(stat);
      reply.header('ETag', etag).header('Cache-Control', 'no-cache').header('Last-Modified', stat.mtime.toUTCString());
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
        return reply.status(304).send();
      }
      return reply
        .type('application/gzip')
        .header('Content-Length', stat.size)
        .header('Content-Disposition', 'attachment; filename="attest-cli.tgz"')
        .send(fs.createReadStream(cliPackage));
    },
  );
}
