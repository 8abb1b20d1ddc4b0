/**
 * /rest-api/gateway/ — the carriers that campaigns dial through: the gateways' routes
 * (src/resources/gateways/) for the voice kind.
 */
import type { Resource } from '../../http/api.ts';
import { gatewayRoutes } from '../gateways/gateways.routes.ts';
import { voiceGateway } from './gateway.kind.ts';

export const gatewayResource: Resource = { name: 'gateway', routes: gatewayRoutes(voiceGateway) };
