// One declaration per route: its path, parameters, query, headers, body and responses as TypeBox
// schemas beside its handler. From the declaration come the request validation (compiled once,
// every failing field named: `?name` for the query, `header:Name` for a header, a JSON Pointer for
// the body; defaults applied), the OpenAPI operation (server/openapi.ts), and the response check
// that tests switch on (`AppDeps.checkResponses`).

import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { DEFAULT_WORKSPACE } from '../shared/config.ts';
import { isUuid } from '../shared/ids.ts';
import type { FieldError } from '../shared/schemas/problem.ts';
import { compileValidator, type Validator } from '../shared/validate.ts';
import { type WorkspaceDb, withinWorkspace } from '../shared/workspace.ts';
import type { AnswerCache } from './answer.cache.ts';
import type { AppDeps } from './deps.ts';
import { methodNotAllowed, requireJson } from './http.ts';
import { HttpProblem } from './problem.ts';
import type { Quotas } from './quotas.ts';
import type { EventStreams } from './sse/event-streams.ts';

/** One answer of a route: a JSON schema (or several, one of which), a problem, or another media type. */
export interface Reply {
  description: string;
  json?: TSchema | readonly TSchema[];
  problem?: true;
  /** Other media types of a 200, each a string body (CSV, an event stream, a page). */
  media?: readonly string[];
  /** Response headers, name → description. */
  headers?: Record<string, string>;
}

interface BodySpec<B extends TSchema> {
  schema: B;
  /** Its request form's component name in the OpenAPI document (defaulted fields optional). */
  name: string;
  description?: string;
  example?: unknown;
  /** Rules the schema cannot say, run on a body it accepted; each error names its field. */
  refine?: (value: Static<B>, body: Record<string, unknown>) => FieldError[];
  /** A validator already compiled for this schema (shared with other callers), instead of compiling one. */
  validator?: Validator<Static<B>>;
}

/**
 * A body taken as it comes, in one of `media` (a file: CSV, text): read up to the body limit
 * (`BODY_LIMIT_BYTES`, or `maxBytes`; over it a 413), any other content type a 415 naming the
 * accepted ones; the handler gets the bytes as `text`. Beside a JSON `body`, JSON goes to that
 * body's validation and exactly one of `body` and `text` is set.
 */
export interface TextBodySpec {
  media: readonly string[];
  description: string;
  /** A smaller limit than BODY_LIMIT_BYTES for this route's body (text or JSON). */
  maxBytes?: number;
}

type Empty = TObject<Record<string, never>>;

interface RouteInput<P extends TObject, Q extends TObject, H extends TObject, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  headers: Static<H>;
  body: Static<B>;
  /** The bytes of a `text` body (undefined when the route has none, or JSON came). */
  text?: Buffer;
  /**
   * The database within the workspace of the request's API key (`default` without API_KEYS): every
   * read and write of a route goes through it (route-facing repository functions require it), and
   * another workspace's id is answered as an unknown one. `ws.workspace` names the workspace.
   */
  ws: WorkspaceDb;
  req: Request;
  res: Response;
}

interface RouteSpec<
  P extends TObject = Empty,
  Q extends TObject = Empty,
  H extends TObject = Empty,
  B extends TSchema = TSchema,
> {
  method: 'get' | 'post' | 'delete';
  /** The OpenAPI form of the path: `/api/scenarios/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Path parameters; a value that fails is a 404 with `notFound` (an unknown and a malformed id are alike). */
  params?: P;
  notFound?: string;
  /** Query parameters; any other is refused. */
  query?: Q;
  /** Request headers by their canonical name (`Idempotency-Key`). */
  headers?: H;
  body?: BodySpec<B>;
  text?: TextBodySpec;
  responses: Record<number, Reply>;
  handle(input: RouteInput<P, Q, H, B>, deps: RouteDeps): Promise<void> | void;
}

/** What a handler is given besides its request: the app's dependencies and the process's event streams. */
export type RouteDeps = AppDeps & { streams: EventStreams; quotas: Quotas; answers: AnswerCache };

// biome-ignore lint/suspicious/noExplicitAny: a list of routes of every shape
export type AnyRoute = RouteSpec<any, any, any, any>;

/** The workspace the API key middleware (server/app.ts) found for this request. */
export const workspaceOf = (res: Response): string => res.locals.workspace ?? DEFAULT_WORKSPACE;

/** Declares a route; the identity, for the types. */
export function defineRoute<P extends TObject, Q extends TObject, H extends TObject, B extends TSchema>(
  spec: RouteSpec<P, Q, H, B>,
): RouteSpec<P, Q, H, B> {
  return spec;
}

/** `{ id }` as a path parameter: a UUID, lower-cased. */
export const IdParams = (what: string) =>
  Type.Object({ id: Type.String({ format: 'uuid', description: `The ${what} id (UUID).` }) });

/** What the response check reports: the route, the status and what did not match. */
export type ResponseCheck = (failure: { operationId: string; status: number; errors: string[] }) => void;

const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

const INTEGER_TEXT = /^-?\d{1,15}$/;
const NUMBER_TEXT = /^-?\d{1,15}(\.\d{1,15})?$/;

/**
 * Query strings are text: a number or boolean parameter is converted only when its text is exactly
 * one (`1.5` stays text where an integer belongs, and fails as such); everything else is left as it came.
 */
function convertQuery(schema: TObject, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  for (const [key, prop] of Object.entries(schema.properties) as [string, TSchema][]) {
    const v = out[key];
    if (typeof v !== 'string') continue;
    if (prop.type === 'integer' && INTEGER_TEXT.test(v)) out[key] = Number(v);
    else if (prop.type === 'number' && NUMBER_TEXT.test(v)) out[key] = Number(v);
    else if (prop.type === 'boolean' && (v === 'true' || v === 'false')) out[key] = v === 'true';
  }
  return out;
}

/** The query's errors, `?name` each; a parameter given twice is an array and fails as one. */
function queryErrors(schema: TObject, check: TypeCheck<TObject>, query: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const allowed = Object.keys(schema.properties);
  for (const key of Object.keys(query)) {
    if (allowed.includes(key)) continue;
    errors.push({
      path: `?${key}`,
      message: allowed.length ? `unknown parameter; allowed: ${allowed.join(', ')}` : 'this route takes no parameters',
    });
  }
  if (errors.length > 0) return errors;
  for (const e of check.Errors(query)) {
    const key = e.path.split('/')[1] ?? '';
    if (errors.some((x) => x.path === `?${key}`)) continue;
    const prop = schema.properties[key] as TSchema | undefined;
    const message = Array.isArray(query[key])
      ? 'must be given once'
      : ((prop?.errorMessage as string | undefined) ?? e.message);
    errors.push({ path: `?${key}`, message });
  }
  return errors;
}

interface Compiled {
  params?: TypeCheck<TObject>;
  query?: TypeCheck<TObject>;
  headers?: TypeCheck<TObject>;
  body?: Validator<unknown>;
  replies: Map<number, TypeCheck<TSchema>[]>;
}

function compile(spec: AnyRoute): Compiled {
  const replies = new Map<number, TypeCheck<TSchema>[]>();
  for (const [status, reply] of Object.entries(spec.responses)) {
    const schemas = reply.json === undefined ? [] : Array.isArray(reply.json) ? reply.json : [reply.json as TSchema];
    if (schemas.length > 0)
      replies.set(
        Number(status),
        schemas.map((s) => TypeCompiler.Compile(s)),
      );
  }
  return {
    params: spec.params && TypeCompiler.Compile(spec.params),
    query: spec.query && TypeCompiler.Compile(spec.query),
    headers: spec.headers && TypeCompiler.Compile(spec.headers),
    body: spec.body && (spec.body.validator ?? compileValidator(spec.body.schema, spec.body.refine)),
    replies,
  };
}

/** The request's parts, validated as the declaration says; a part that fails throws its problem. */
function parse(spec: AnyRoute, c: Compiled, req: Request) {
  let params: Record<string, unknown> = {};
  if (spec.params && c.params) {
    params = { ...req.params };
    if (!c.params.Check(params)) throw new HttpProblem('not_found', spec.notFound ?? 'not found');
    for (const [k, v] of Object.entries(params)) if (typeof v === 'string' && isUuid(v)) params[k] = v.toLowerCase();
  }
  const rawQuery = req.query as Record<string, unknown>;
  const query = spec.query ? (Value.Default(spec.query, convertQuery(spec.query, rawQuery)) as object) : {};
  const errors = spec.query && c.query ? queryErrors(spec.query, c.query, query as Record<string, unknown>) : [];
  if (!spec.query) errors.push(...queryErrors(Type.Object({}), TypeCompiler.Compile(Type.Object({})), rawQuery));
  if (errors.length > 0) throw new HttpProblem('bad_request', errors[0].message, { errors });
  const headers: Record<string, unknown> = {};
  if (spec.headers && c.headers) {
    for (const name of Object.keys(spec.headers.properties)) {
      const v = req.get(name);
      if (v !== undefined) headers[name] = v;
    }
    const failed = [...c.headers.Errors(headers)].map((e) => {
      const name = e.path.slice(1);
      const message = (spec.headers?.properties[name]?.errorMessage as string | undefined) ?? e.message;
      return { path: `header:${name}`, message };
    });
    if (failed.length > 0)
      throw new HttpProblem('bad_request', `${failed[0].path} ${failed[0].message}`, { errors: failed });
  }
  let body: unknown;
  if (c.body && !Buffer.isBuffer(req.body)) {
    const result = c.body(req.body);
    if (!result.ok) {
      throw new HttpProblem('validation', `${result.errors.length} field(s) failed validation`, {
        errors: result.errors,
      });
    }
    body = result.value;
  }
  return { params, query, headers, body, text: Buffer.isBuffer(req.body) ? req.body : undefined };
}

/** Wraps `res.json`/`res.send` to check JSON answers against the declared schema of their status. */
function checkingResponses(res: Response, spec: AnyRoute, c: Compiled, report: ResponseCheck): void {
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    const checks = c.replies.get(res.statusCode);
    const type = String(res.getHeader('Content-Type') ?? '');
    if (checks && type.startsWith('application/json') && body !== undefined) {
      const value = typeof body === 'string' || Buffer.isBuffer(body) ? JSON.parse(String(body)) : body;
      if (!checks.some((ch) => ch.Check(value))) {
        const errors = [...checks[0].Errors(value)].slice(0, 5).map((e) => `${e.path} ${e.message}`);
        report({ operationId: spec.operationId, status: res.statusCode, errors });
        // The test that switched the check on sees a 500 it cannot miss, naming what did not match.
        res.status(500).type('application/problem+json');
        return send(
          JSON.stringify({ type: 'about:blank', title: 'Response check', status: 500, detail: errors.join('; ') }),
        );
      }
    } else if (res.statusCode < 300 && spec.responses[res.statusCode] === undefined) {
      report({ operationId: spec.operationId, status: res.statusCode, errors: ['this status is not declared'] });
    }
    return send(body as never);
  };
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A route's body reader: JSON to the JSON parser, a declared text type to the raw one, anything else a 415. */
function bodyReader(spec: AnyRoute, limit: number): RequestHandler {
  const text = spec.text as TextBodySpec;
  const json = express.json({ limit: text.maxBytes ?? limit, type: () => true, strict: false });
  const raw = express.raw({ limit: text.maxBytes ?? limit, type: () => true });
  const accepted = [...(spec.body ? ['application/json'] : []), ...text.media];
  return (req, res, next) => {
    if (spec.body && req.headers['content-type'] && req.is(JSON_TYPES)) return json(req, res, next);
    if (req.headers['content-type'] && req.is(text.media as string[])) return raw(req, res, next);
    next(
      new HttpProblem('unsupported_media_type', `send the body as Content-Type: ${accepted.join(', ')}`, {
        headers: { 'Accept-Post': accepted.join(', ') },
      }),
    );
  };
}

/**
 * A router serving `routes`: one JSON body parser for every route with a body (a route with a text
 * body reads its declared types raw), each route's request validated before its handler runs, and
 * a 405 naming the allowed methods on each path.
 */
export function mountRoutes(routes: readonly AnyRoute[], deps: RouteDeps): Router {
  const router = Router();
  const json = express.json({ limit: deps.config.bodyLimitBytes, type: () => true, strict: false });
  const jsonOnly: RequestHandler = (req, _res, next) => {
    try {
      requireJson(req);
      next();
    } catch (err) {
      next(err);
    }
  };
  const methods = new Map<string, string[]>();
  for (const spec of routes) {
    const c = compile(spec);
    const handler: RequestHandler = async (req, res) => {
      if (deps.checkResponses) checkingResponses(res, spec, c, deps.checkResponses);
      const input = parse(spec, c, req);
      await spec.handle(
        {
          ...(input as Omit<RouteInput<Empty, Empty, Empty, TSchema>, 'req' | 'res' | 'ws'>),
          ws: withinWorkspace(deps.db, workspaceOf(res)),
          req,
          res,
        },
        deps,
      );
    };
    const path = expressPath(spec.path);
    if (spec.text) router[spec.method](path, bodyReader(spec, deps.config.bodyLimitBytes), handler);
    else if (spec.body) router[spec.method](path, jsonOnly, json, handler);
    else router[spec.method](path, handler);
    methods.set(path, [...(methods.get(path) ?? []), spec.method.toUpperCase()]);
  }
  for (const [path, allowed] of methods) router.all(path, methodNotAllowed(...allowed.sort()));
  return router;
}
