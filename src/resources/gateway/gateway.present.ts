import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { recordUrl } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { GatewayRow } from './gateway.repository.ts';
import type { GatewayRecord } from './gateway.schema.ts';
import { maskSecrets } from './gateway.secrets.ts';

/** Contract §3: admins see the configuration (secrets masked); anyone else the url and name. */
export function presentGateway(request: FastifyRequest, row: GatewayRow): Static<typeof GatewayRecord> {
  const head = { id: row.id, url: recordUrl(request, 'gateway', row.id), name: row.name };
  if (!request.user.is_admin) return head;
  return {
    ...head,
    status: row.status,
    description: row.description,
    driver: row.driver,
    gateways: row.gateways,
    addprefix: row.addprefix,
    removeprefix: row.removeprefix,
    originate_dial_string: row.originate_dial_string,
    maximum_call: row.maximum_call,
    settings: maskSecrets(row.settings) as Record<string, unknown>,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
