/**
 * The request fields and record every gateway kind shares (contract §3, issues 5 and 6 §1),
 * with the kind's own in their place. Only admins write gateways and see their configuration;
 * anyone else reads `id`, `url` and `name`, hence the optional fields.
 */
import { type TProperties, Type } from '@sinclair/typebox';
import { GatewayStatus } from '../../db/schema.ts';
import { choice, type Fields, jsonObject, text } from '../../http/fields.ts';

function commonFields(driverDescription: string) {
  return {
    name: text({ required: true, max: 100, blank: false }),
    status: choice(Object.values(GatewayStatus), { description: `${GatewayStatus.Active} active, ${GatewayStatus.Inactive} inactive` }),
    description: text({ max: 2000 }),
    driver: text({ max: 30, blank: false, description: driverDescription }),
    settings: jsonObject({ description: "the driver's settings; passwords, secrets and tokens are write-only" }),
  };
}

export type CommonGatewayFields = ReturnType<typeof commonFields>;

/** The fields of a kind: the common ones, its own (`own`) just before `settings`. */
export function gatewayFields<F extends Fields>(driverDescription: string, own: F): CommonGatewayFields & F {
  const { settings, ...head } = commonFields(driverDescription);
  return { ...head, ...own, settings };
}

const Optional = Type.Optional;

/**
 * The record of a kind: `config`, its own configuration, before `settings`; `derived`, what is
 * worked out from it, after. Every property but id, url and name is for admins only (optional).
 */
export function gatewayRecord(config: TProperties, derived: TProperties) {
  return Type.Object({
    id: Type.Integer(),
    url: Type.String({ format: 'uri' }),
    name: Type.String(),
    status: Optional(Type.Integer()),
    description: Optional(Type.String()),
    driver: Optional(Type.String()),
    ...config,
    settings: Optional(Type.Object({}, { additionalProperties: true })),
    ...derived,
    created_date: Optional(Type.String({ format: 'date-time' })),
    updated_date: Optional(Type.String({ format: 'date-time' })),
  });
}
