import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { callbackUrls } from '../../drivers/sms/kannel.ts';
import { baseUrl, recordUrl } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { maskSecrets } from '../gateway/gateway.secrets.ts';
import type { SmsGatewayRow } from './sms-gateway.repository.ts';
import type { SmsGatewayRecord } from './sms-gateway.schema.ts';

/**
 * Contract §3: admins see the configuration (secrets masked) and the callback URLs to give the
 * SMS gateway (they hold the secret); anyone else the url and name. The callback URLs are under
 * the kannel driver's callback_base_url when set (how Kannel reaches us), else this request's.
 */
export function presentSmsGateway(request: FastifyRequest, row: SmsGatewayRow): Static<typeof SmsGatewayRecord> {
  const head = { id: row.id, url: recordUrl(request, 'sms-gateway', row.id), name: row.name };
  if (!request.user.is_admin) return head;
  const settings = row.settings as Record<string, unknown>;
  const base = typeof settings.callback_base_url === 'string' ? settings.callback_base_url : baseUrl(request);
  const urls = callbackUrls(base, row);
  return {
    ...head,
    status: row.status,
    description: row.description,
    driver: row.driver,
    settings: maskSecrets(settings) as Record<string, unknown>,
    report_url: urls.report,
    inbound_url: urls.inbound,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
