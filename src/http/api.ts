/**
 * What every resource's routes file is given: the typed Fastify instance (mounted under
 * /rest-api/ behind authentication), the application's dependencies, and small helpers shared
 * by all routes.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Config } from '../config.ts';
import type { Database, Db } from '../db/database.ts';
import type { AuthOptions } from './auth.ts';
import { notFound } from './errors.ts';
import type { FieldContext } from './fields.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Wakes the engine when a state change has work for it (campaign start, trickled contacts…). */
export interface EngineSignal {
  wake(): void;
}

export interface AppDeps {
  database: Database;
  config: Config;
  auth?: AuthOptions;
  /** Absent when this process serves the API only; the engine then finds work by polling. */
  engine?: EngineSignal;
  /** The built console served at `/`; defaults to the package's console/dist (tests point elsewhere). */
  consoleDir?: string;
  /** Log destination for tests; defaults to stdout at config.logLevel. */
  logger?: boolean | object;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a multipart body (audio upload, bulk import); elsewhere multipart is a 415. */
    multipart?: boolean;
    /** The route authenticates its callers itself (SMS gateway callbacks): no Basic/Token auth. */
    public?: boolean;
  }
}

/** A REST resource: the name in its URL, and a function that registers its routes. */
export interface Resource {
  /** The path segment: /rest-api/<name>/ */
  name: string;
  /** Other path segments routed to the same resource (dnc-list ⇄ dnc); not listed in the root. */
  aliases?: string[];
  /** false: routes only (e.g. bulk import endpoints under other resources), not in the API root. */
  listed?: boolean;
  routes(api: Api, deps: AppDeps): void | Promise<void>;
}

/** The `:id` of a record route; anything but a positive integer is a 404, as for a missing row. */
export function recordId(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? '';
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
}

/** The field context of a request: its database and caller. */
export function fieldContext(db: Db, request: FastifyRequest): FieldContext {
  return { db, user: request.user };
}
