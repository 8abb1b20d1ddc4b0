/**
 * buildApp(deps) → the Fastify instance with every resource registered by hand. It never
 * listens (main.ts does), so tests drive it with app.inject().
 */
import crypto from 'node:crypto';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type HTTPMethods } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Api, AppDeps, Resource } from './http/api.ts';
import { Authenticator } from './http/auth.ts';
import { registerConsole } from './http/console.ts';
import { AppError, clientErrorHandler, methodNotAllowed, registerErrorHandler } from './http/errors.ts';
import { boundaryError } from './http/multipart.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { nulError } from './http/null-characters.ts';
import { API_PREFIX, listUrl } from './http/links.ts';
import { RequestLogAtDebug } from './http/request-log.ts';
import { SESSION_COOKIE, Sessions } from './http/sessions.ts';
import { UserCache } from './http/user-cache.ts';
import { audioFilesResource } from './resources/audio-files/audio-files.routes.ts';
import { bulkResource } from './resources/bulk/bulk.routes.ts';
import { calleridResource } from './resources/callerid/callerid.routes.ts';
import { callrequestResource } from './resources/callrequest/callrequest.routes.ts';
import { campaignsResource, smsCampaignsResource } from './resources/campaigns/routes.ts';
import { cdrResource } from './resources/cdr/cdr.routes.ts';
import { didResource } from './resources/did/did.routes.ts';
import { subscriberListResource } from './resources/subscriber-list/subscriber-list.routes.ts';
import { calleridGroupResource } from './resources/callerid-group/callerid-group.routes.ts';
import { contactResource } from './resources/contact/contact.routes.ts';
import { dncContactResource } from './resources/dnc-contact/dnc-contact.routes.ts';
import { dncListResource } from './resources/dnc-list/dnc-list.routes.ts';
import { gatewayResource } from './resources/gateway/gateway.routes.ts';
import { smsGatewayResource } from './resources/sms-gateway/sms-gateway.routes.ts';
import { paymentResource } from './resources/payment/payment.routes.ts';
import { phonebookResource } from './resources/phonebook/phonebook.routes.ts';
import { queueResource } from './resources/queue/queue.routes.ts';
import { branchingTemplateResource } from './resources/branching-template/branching-template.routes.ts';
import { sectionTemplateResource } from './resources/section-template/section-template.routes.ts';
import { surveyTemplateResource } from './resources/survey-template/survey-template.routes.ts';
import { usersResource } from './resources/users/users.routes.ts';
import { accountsResource } from './resources/accounts/accounts.routes.ts';
import { tokensResource } from './resources/tokens/tokens.routes.ts';
import { smsMessageResource } from './resources/sms-message/sms-message.routes.ts';
import { webhookResource } from './resources/webhook/webhook.routes.ts';
import { eventsResource } from './resources/events/events.routes.ts';
import { sessionResource } from './resources/session/session.routes.ts';
import { mailTemplateResource } from './resources/mail-template/mail-template.routes.ts';
import { smsTemplateResource } from './resources/sms-template/sms-template.routes.ts';
import { bulkContactResource } from './resources/bulkcontact/bulkcontact.routes.ts';
import { subscriberResource } from './resources/subscriber/subscriber.routes.ts';
import { subCampaignResource } from './resources/subcampaign/subcampaign.routes.ts';
import { surveyAggregateResource } from './resources/surveyaggregate/surveyaggregate.routes.ts';
import { sealedSurveyResource } from './resources/sealed-survey/sealed-survey.routes.ts';
import { contentTypeResource } from './resources/content-type/content-type.routes.ts';
import { appointmentResources } from './resources/appointment/appointment.routes.ts';

/**
 * The routes Newfies-Dialer serves that the seed document leaves out (issue 17): README's
 * "Newfies API beyond the seed".
 */
const beyondTheSeed: Resource[] = [
  mailTemplateResource,
  smsTemplateResource,
  bulkContactResource,
  subscriberResource,
  subCampaignResource,
  surveyAggregateResource,
  sealedSurveyResource,
  contentTypeResource,
  ...appointmentResources,
];

/** Every REST resource, in the order the API root lists them. */
export const resources: Resource[] = [
  usersResource,
  paymentResource,
  phonebookResource,
  contactResource,
  dncListResource,
  dncContactResource,
  calleridGroupResource,
  calleridResource,
  bulkResource,
  audioFilesResource,
  queueResource,
  surveyTemplateResource,
  sectionTemplateResource,
  branchingTemplateResource,
  campaignsResource,
  subscriberListResource,
  callrequestResource,
  cdrResource,
  didResource,
  gatewayResource,
  smsGatewayResource,
  smsCampaignsResource,
  smsMessageResource,
  accountsResource,
  tokensResource,
  webhookResource,
  eventsResource,
  sessionResource,
  ...beyondTheSeed,
];

/**
 * The OpenAPI tags of those routes (each resource tags its routes with its name), described as
 * beyond the seed, so a reader of the document learns what the README says. Not `x-tagGroups`:
 * Redoc hides every tag left out of its groups, and swagger-ui ignores them.
 */
const beyondTheSeedTags = () =>
  beyondTheSeed.map((resource) => ({
    name: resource.name,
    description:
      'Newfies API beyond the seed (issue 17): a route Newfies-Dialer serves that the seed document leaves out' +
      (appointmentResources.includes(resource) ? ', of its appointment reminders' : '') +
      '. See the README section "Newfies API beyond the seed".',
  }));

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const JSON_BODY_LIMIT = 1024 * 1024; // contract §8: JSON bodies over 1 MB → 413

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel },
    logController: new RequestLogAtDebug(),
    trustProxy: deps.config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Request input is read by http/fields.ts and the routes, with DRF's messages and leniency
  // (numbers as strings, "True", links in three forms, every error at once), which Ajv cannot
  // give. The TypeBox schemas on the routes document that input in the OpenAPI description and
  // serialize the responses; they are not a second validator with other messages.
  app.setValidatorCompiler(() => () => true);

  // JSON only (contract §1): without the text/plain parser, any other type is a 415.
  app.removeContentTypeParser('text/plain');
  registerErrorHandler(app);
  // Multipart is read only by routes that declare `config: { multipart: true }` (audio upload,
  // bulk import); on any other route it is a 415 like any non-JSON body.
  // http/multipart.ts holds a form to one file and 20 fields itself; `parts` is busboy's backstop.
  await app.register(multipart, { limits: { fileSize: deps.config.maxUploadBytes, parts: 1000 } });
  // These two run on every request: callback style, which costs less than an async hook.
  app.addHook('preValidation', (request, _reply, done) => {
    const config = request.routeOptions.config as { multipart?: boolean };
    if (request.isMultipart()) {
      if (!config.multipart) return done(new AppError(415, { detail: 'Unsupported media type "multipart/form-data" in request.' }));
      const noBoundary = boundaryError(request);
      if (noBoundary) return done(noBoundary);
    }
    // A NUL anywhere in the query or the JSON body is a 400 naming the field (multipart: its reader).
    const refused = nulError(request.query) ?? nulError(request.body);
    if (refused) return done(refused);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Campaign Dialer API',
        version: '1',
        description: 'Newfies-Dialer compatible REST API for voice and SMS campaigns.',
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic' },
          token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <key>' },
          cookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: 'The session of POST /rest-api/session/ (browsers). Writes also need the header X-CSRF-Token (the session\'s csrf_token) and an Origin of this host.',
          },
        },
      },
      security: [{ basic: [] }, { token: [] }, { cookie: [] }],
      tags: beyondTheSeedTags(),
    },
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });

  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await deps.database.db.execute(sql`select 1`);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  // Users are read from an in-process cache that a trigger's notifications keep current.
  const userCache = new UserCache();
  await userCache.start(deps.database, app.log);
  app.addHook('onClose', () => userCache.stop());
  app.decorate('userCache', userCache);
  const sessions = new Sessions({ hours: deps.config.sessionHours, now: deps.auth?.now });
  const authenticator = new Authenticator(userCache, sessions, deps.auth);
  app.decorate('authenticator', authenticator);
  await app.register(
    async (api: Api) => {
      api.addHook('onRequest', async (request) => {
        if (request.routeOptions.config.public) return; // authenticated by the route (SMS gateway callbacks)
        request.user = await authenticator.authenticate(deps.database.db, request);
      });
      registerIdempotency(api, deps.database.db);
      const offered = new Map<string, Set<string>>();
      api.addHook('onRoute', (route) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const set = offered.get(route.url) ?? new Set<string>();
        methods.forEach((m) => set.add(m));
        offered.set(route.url, set);
      });

      api.get('/', { schema: { hide: true } }, async (request) =>
        Object.fromEntries(resources.filter((r) => r.listed !== false).map((r) => [r.name, listUrl(request, r.name)])),
      );
      for (const resource of resources) await resource.routes(api, deps);

      // A method a path does not offer is 405, as DRF answers (e.g. POST /rest-api/queue/).
      for (const [url, methods] of offered) {
        const missing = METHODS.filter((m) => !methods.has(m));
        if (missing.length === 0 || url.startsWith(`${API_PREFIX}/docs`)) continue;
        api.route({
          method: missing,
          url: url.slice(API_PREFIX.length) || '/',
          schema: { hide: true },
          handler: async (request) => {
            throw methodNotAllowed(request.method);
          },
        });
      }
    },
    { prefix: API_PREFIX },
  );

  // The operators' console at `/` (every path outside /rest-api/ that a browser opens).
  await registerConsole(app, deps.consoleDir);

  return app;
}
