// The viewer: pages for people, served by the web process on the API's origin. One HTML shell for
// `/`, `/scenarios/{id}`, `/sweeps/{id}`, `/optimizations/{id}` and `/files` (the browser script
// routes by the path, so every page works from a pasted URL and with the back button), and one script and one style sheet built from
// server/viewer/client/ with esbuild when the web process starts: no build step to remember, and
// nothing from another origin (Apache ECharts is bundled from node_modules).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import { acceptsGzip, etagMatches, methodNotAllowed } from '../http.ts';
import { HttpProblem } from '../problem.ts';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function asset(type: string, text: string): Asset {
  const body = Buffer.from(text);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { type, body, gzip: gzipSync(body, { level: 9 }), etag };
}

const CLIENT = new URL('./client/', import.meta.url);

/** Builds the browser script and style sheet (~0.3 s); the result is kept for the process's life. */
async function buildViewer(): Promise<Record<string, Asset>> {
  const result = await build({
    entryPoints: [new URL('main.ts', CLIENT).pathname],
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: 'out',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const css = readFileSync(new URL('style.css', CLIENT), 'utf8');
  const html = readFileSync(new URL('index.html', CLIENT), 'utf8');
  const assets: Record<string, Asset> = {
    '/viewer/app.css': asset('text/css; charset=utf-8', css),
    shell: asset('text/html; charset=utf-8', html),
  };
  // main.js, and the chunks it imports (Apache ECharts among them), by file name.
  for (const file of result.outputFiles) {
    assets[`/viewer/${file.path.split('/').pop()}`] = asset('text/javascript; charset=utf-8', file.text);
  }
  return assets;
}

let built: Promise<Record<string, Asset>> | undefined;

export function viewerRoutes(): ExpressRouter {
  const router = Router();
  built ??= buildViewer();
  // A failed build must not take the API down: the pages answer 500, the API goes on.
  built.catch(() => {});

  const send = (name: string, cache: string) => async (req: Request, res: Response) => {
    const a = (await built)?.[name];
    if (!a) throw new HttpProblem('not_found', `no viewer file ${name}`);
    res.setHeader('Cache-Control', cache);
    res.setHeader('ETag', a.etag);
    res.setHeader('Vary', 'Accept-Encoding');
    // The pages load nothing from another origin; the browser enforces it.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    const ifNoneMatch = req.get('If-None-Match');
    if (ifNoneMatch && etagMatches(ifNoneMatch, a.etag)) {
      res.status(304).end();
      return;
    }
    res.type(a.type);
    if (acceptsGzip(req.get('Accept-Encoding'))) {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(a.gzip);
    } else res.end(a.body);
  };
  // The shell is revalidated (the script it names may change with a new release); the script and
  // style sheet are revalidated too but cost a 304 only.
  const page = send('shell', 'no-cache');
  router.route('/').get(page).all(methodNotAllowed('GET'));
  router.route('/scenarios/:id').get(page).all(methodNotAllowed('GET'));
  router.route('/sweeps/:id').get(page).all(methodNotAllowed('GET'));
  router.route('/optimizations/:id').get(page).all(methodNotAllowed('GET'));
  router.route('/files').get(page).all(methodNotAllowed('GET'));
  router
    .route('/viewer/:file')
    .get(async (req, res, next) => {
      const name = `/viewer/${req.params.file}`;
      if (!(await built)?.[name]) return next();
      // A chunk's name carries its content hash: it never changes. main.js and the style sheet do.
      const hashed = /-[A-Z0-9]{8}\.js$/.test(name);
      await send(name, hashed ? 'public, max-age=31536000, immutable' : 'no-cache')(req, res);
    })
    .all(methodNotAllowed('GET'));
  return router;
}
