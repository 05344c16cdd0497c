// createApp(deps) builds the Express app; only server/web.process.ts listens (server/main.ts runs it).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import { pino } from 'pino';
import { pinoHttp } from 'pino-http';
import { type ApiKey, DEFAULT_WORKSPACE } from '../shared/config.ts';
import { AnswerCache } from './answer.cache.ts';
import type { AppDeps } from './deps.ts';
import { HttpProblem, problemMiddleware } from './problem.ts';
import { Quotas } from './quotas.ts';
import { mountRoutes, type RouteDeps } from './route.ts';
import { docsRoutes } from './routes/docs.route.ts';
import { API_ROUTES, PUBLIC_ROUTES } from './routes/index.ts';
import { EventStreams } from './sse/event-streams.ts';
import { viewerRoutes } from './viewer/viewer.route.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Query parameters whose values never reach the log (a client may put its key in the URL by mistake). */
const SECRET_PARAM = /key|token|secret|passw|auth|sig|credential/i;

/** The URL with the values of secret-looking query parameters replaced by [redacted]. */
function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {}
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}

function cors(origins: readonly string[]): RequestHandler {
  const anyOrigin = origins.includes('*');
  return (req, res, next) => {
    const origin = req.get('Origin');
    if (origin && (anyOrigin || origins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'Location, ETag, X-Request-Id, Idempotent-Replayed');
      if (req.method === 'OPTIONS' && req.get('Access-Control-Request-Method')) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST');
        res.setHeader(
          'Access-Control-Allow-Headers',
          'Content-Type, Authorization, Idempotency-Key, If-None-Match, Last-Event-ID, X-Request-Id',
        );
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  };
}

/** Bearer API keys, compared in constant time; on only when API_KEYS is set. */
const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The API key's workspace, as `res.locals.workspace`, or a 401. The key is compared by its SHA-256
 * digest against every configured key's, without stopping at a match: the time taken says neither
 * which key matched nor how long the keys are. No key is ever logged (the request log leaves out
 * headers; server/app.ts's pino-http serializers).
 */
function apiKeyAuth(keys: readonly ApiKey[]): RequestHandler {
  const expected = keys.map((k) => ({ workspace: k.workspace, digest: digest(k.key) }));
  return (req, res, next) => {
    const header = req.get('Authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const given = digest(match?.[1]?.trim() ?? '');
    let workspace: string | null = null;
    for (const key of expected) {
      const same = timingSafeEqual(key.digest, given);
      if (same && workspace === null) workspace = key.workspace;
    }
    res.locals.workspace = workspace;
    if (workspace === null) {
      next(
        new HttpProblem('unauthorized', 'send Authorization: Bearer <api key>', {
          headers: { 'WWW-Authenticate': 'Bearer realm="hourglass"' },
        }),
      );
      return;
    }
    next();
  };
}

/** Without API_KEYS: one open workspace. */
const openWorkspace: RequestHandler = (_req, res, next) => {
  res.locals.workspace = DEFAULT_WORKSPACE;
  next();
};

export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // One short line a request: id, method, URL (secret-looking query values redacted), status.
      // The default serializers copied every request and response header into each line (and
      // then redacted the secret ones): ~5 % of the web's time under create load.
      wrapSerializers: false,
      serializers: {
        req: (req: IncomingMessage & { id?: unknown; originalUrl?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.originalUrl ?? req.url ?? ''),
          user_agent: req.headers['user-agent'],
        }),
        res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
      // SSE streams and health probes would flood the log at info.
      customLogLevel: (req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : req.url?.startsWith('/healthz') ? 'debug' : 'info',
    }),
  );
  app.use(securityHeaders());
  if (config.corsOrigins.length > 0) app.use(cors(config.corsOrigins));
  // One count of open event streams for the whole process (MAX_SSE_STREAMS), whatever their resource.
  const streams = new EventStreams(deps.listener, { max: config.maxSseStreams, heartbeatMs: config.sseHeartbeatMs });
  const quotas = new Quotas(config.quotas, deps.db);
  // One cache of built full statements answers for the whole process (RESULT_CACHE_MB).
  const answers = new AnswerCache(config.resultCacheMb * 1024 * 1024);
  const routeDeps: RouteDeps = { ...deps, streams, quotas, answers };
  app.use(mountRoutes(PUBLIC_ROUTES, routeDeps));
  app.use(docsRoutes(deps));
  // The viewer's pages are open (they hold no data); the API they call asks for the key.
  app.use(viewerRoutes());
  if (config.apiKeys.length > 0) app.use('/api', apiKeyAuth(config.apiKeys));
  else app.use('/api', openWorkspace);
  app.use('/api', quotas.middleware());
  app.use(mountRoutes(API_ROUTES, routeDeps));
  for (const router of deps.routes ?? []) app.use(router);
  app.use((req, _res, next) => next(new HttpProblem('not_found', `no route for ${req.method} ${req.path}`)));
  app.use(problemMiddleware);
  return app;
}
