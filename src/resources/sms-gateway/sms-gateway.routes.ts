/**
 * /rest-api/sms-gateway/ — the SMS gateways that SMS campaigns send through: the gateways'
 * routes (src/resources/gateways/) for the SMS kind, and what only this kind has, the
 * gateway's callback routes, called by the SMS gateway itself (Kannel's dlr-url and
 * sms-service get-url), without Basic auth: the gateway's secret in the path authenticates them
 * (a wrong one is a 404). They are `public` routes, hidden from the API root and the OpenAPI.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { smsEvents } from '../../campaign/sms-events.ts';
import { kannelReportStatus } from '../../drivers/sms/kannel.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { gatewayRoutes } from '../gateways/gateways.routes.ts';
import { findSmsGateway, smsGateway, type SmsGatewayRow } from './sms-gateway.kind.ts';

const digest = (value: string) => crypto.createHash('sha256').update(value).digest();

/** The gateway of a callback route when the secret in its path is right; else a 404. */
async function gatewayOfCallback(deps: AppDeps, request: FastifyRequest): Promise<SmsGatewayRow> {
  const gateway = await findSmsGateway(deps.database.db, recordId(request));
  const secret = (request.params as { secret?: string }).secret ?? '';
  if (!gateway || !crypto.timingSafeEqual(digest(secret), digest(gateway.callback_secret))) throw notFound();
  return gateway;
}

/** The callback's parameters: the query string, and a form body when one was posted. */
function callbackParams(request: FastifyRequest): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) params.set(key, String(value));
  if (typeof request.body === 'string') for (const [key, value] of new URLSearchParams(request.body)) params.set(key, value);
  return params;
}

const badCallback = (detail: string) => new AppError(400, { detail });

/** Kannel fetches the URL and ignores the body; for an sms-service an empty body sends no reply SMS. */
const done = (reply: FastifyReply) => reply.code(200).type('text/plain').send('');

function callbackRoutes(api: Api, deps: AppDeps) {
  // One report queue for the API process: reports arriving together share a statement.
  const shared = smsEvents(deps.database.db, api.log);
  api.addHook('onClose', () => shared.close());
  const options = { config: { public: true }, schema: { hide: true } };

  // Kannel's dlr-url: ?id=<our message id>&type=%d[&reply=%A]
  api.route({
    ...options,
    method: ['GET', 'POST'],
    url: '/sms-gateway/:id/report/:secret/',
    handler: async (request, reply) => {
      const gateway = await gatewayOfCallback(deps, request);
      const params = callbackParams(request);
      const id = params.get('id') ?? '';
      const type = params.get('type') ?? '';
      if (!/^\d{1,18}$/.test(id)) throw badCallback('id: our message id (digits) is required.');
      if (!/^\d{1,3}$/.test(type)) throw badCallback('type: the report type (%d) is required.');
      const status = kannelReportStatus(Number(type));
      if (!status) throw badCallback(`type: unknown report type ${type}.`);
      const smscReply = params.get('reply');
      await shared.report(gateway.id, {
        messageId: Number(id),
        status,
        at: new Date(),
        ...(status === 'failed' ? { error: `kannel report type ${type}${smscReply ? `: ${smscReply}` : ''}`.slice(0, 200) } : {}),
      });
      return done(reply);
    },
  });

  // Kannel's sms-service get-url: ?from=%p&to=%P&text=%a
  api.route({
    ...options,
    method: ['GET', 'POST'],
    url: '/sms-gateway/:id/inbound/:secret/',
    handler: async (request, reply) => {
      const gateway = await gatewayOfCallback(deps, request);
      const params = callbackParams(request);
      const from = params.get('from') ?? '';
      if (!from) throw badCallback('from: the sender number (%p) is required.');
      await shared.inbound(gateway.id, { from, to: params.get('to') ?? '', text: params.get('text') ?? '', at: new Date() });
      return done(reply);
    },
  });
}

const recordRoutes = gatewayRoutes(smsGateway);

async function routes(api: Api, deps: AppDeps) {
  recordRoutes(api, deps);

  // The callbacks take form bodies too (Kannel's post-url), read only in this scope.
  await api.register(async (scope: Api) => {
    scope.addContentTypeParser(['application/x-www-form-urlencoded', 'text/plain'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
    callbackRoutes(scope, deps);
  });
}

export const smsGatewayResource: Resource = { name: 'sms-gateway', routes };
