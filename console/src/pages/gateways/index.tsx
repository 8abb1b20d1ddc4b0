/** Gateways (voice): /gateways (list), and for admins /gateways/new and /gateways/:id. */
import { GatewayPages, type GatewayKind } from '../../components/gateway-pages.tsx';

const VOICE: GatewayKind = {
  kind: 'voice',
  resource: 'gateway',
  path: '/gateways',
  title: 'Gateways',
  noun: 'gateway',
  drivers: ['simulator', 'freeswitch', 'sip'],
  plural: 'gateways',
  what: 'The carriers calls go through: a campaign dials through one gateway.',
};

export default function Gateways() {
  return <GatewayPages k={VOICE} />;
}
